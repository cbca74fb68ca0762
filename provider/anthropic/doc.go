// Package anthropic is a [chat.Model] for Anthropic's Messages API, on Anthropic's API, Amazon
// Bedrock and Google Vertex AI, built on the official Go SDK (github.com/anthropics/anthropic-sdk-go).
//
//	m, err := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5"})
//	resp, err := m.Call(ctx, &chat.Prompt{Messages: []chat.Message{chat.User("Hi")}})
//
// # Configuration
//
// [Config] holds the defaults of every request. The API key comes from [Config.APIKey] or, when
// empty, from the SDK's usual sources ($ANTHROPIC_API_KEY, $ANTHROPIC_AUTH_TOKEN, an
// ANTHROPIC_PROFILE); the base URL from [Config.BaseURL] or $ANTHROPIC_BASE_URL. The per-call
// [chat.Options] override the model, temperature and max tokens.
//
// # Amazon Bedrock and Google Vertex AI
//
// [NewBedrock] and [NewVertex] return the same Model for Claude hosted on the clouds, through the
// SDK's own bedrock and vertex packages, which rewrite each Messages request for the platform
// and authenticate it; everything else (mapping, streaming, caching, errors) is shared.
//
//   - Bedrock: POST /model/{model}/invoke or /invoke-with-response-stream on
//     bedrock-runtime.{region}.amazonaws.com; the body is the Messages body without model and
//     stream, with anthropic_version bedrock-2023-05-31; streams arrive as AWS event-stream
//     frames, which the SDK turns back into Anthropic events. Credentials come from
//     [BedrockConfig.AWS] or the AWS configuration chain (config.LoadDefaultConfig: environment,
//     shared files and profiles, SSO, web identity, container and instance roles), requests are
//     signed with SigV4; a Bedrock API key ([Config.APIKey] or $AWS_BEARER_TOKEN_BEDROCK) is sent
//     as a bearer token instead. The region is [BedrockConfig.Region] or the configuration's.
//     Error answers ({"message"} with the kind in X-Amzn-Errortype) become [*chat.ProviderError]
//     with Type set to that kind (ThrottlingException, AccessDeniedException, …); exceptions
//     inside a stream too, with the status Bedrock documents for them.
//   - Vertex AI: POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:rawPredict
//     (or :streamRawPredict), the body without model, with anthropic_version vertex-2023-10-16,
//     an OAuth2 token of [VertexConfig.Credentials] or of Application Default Credentials. Google's
//     error envelope becomes a [*chat.ProviderError] with Type set to its status (UNAUTHENTICATED, …).
//
// [Model.Info] names the platform ("aws.bedrock", "gcp.vertex_ai") as the GenAI semantic
// conventions do; errors and reasoning keep the provider name "anthropic". The SDK's retries
// ([Config.MaxRetries]) cover the platforms' throttling (429) and 5xx answers.
//
// # Images and documents
//
// Content parts ([content.Part]) map onto blocks in order: text; images (JPEG, PNG, GIF, WebP)
// as base64 or http(s) URL sources; documents as PDF (base64 or URL) or plain text (any text/*
// type or JSON, which must be UTF-8), titled with the part's name. Tool results take all three
// natively: a tool_result block's content holds the result's text, images and documents in
// order. Claude on Amazon Bedrock and on Vertex AI takes base64 sources only, so there a part by
// URL is refused. The Messages API takes no audio, no other image or document types, no media in
// the system prompt or in assistant turns: such a part fails the call with a
// [*content.Unsupported] before anything is sent, as does a malformed part (content.Part.Validate)
// and media whose base64 alone passes the API's 32 MB request limit (content.ErrTooLarge). Prompt
// caching works the same with media: a turn's breakpoint goes on its last block, image, document
// or tool_result alike.
//
// # Prompt caching
//
// [Cache] places cache_control breakpoints: on the last tool definition, on the system prompt,
// and on the last block of the last turns. [Config.Cache] sets them for every request and
// [ExtraCache] for one call. [CacheAuto] (last tool, system, last turn) is the setting for tool
// loops: each round's request begins with the previous round's, which the breakpoint on its last
// turn cached, so only the new turns are processed. The Messages API accepts at most four
// breakpoints ([MaxCacheBreakpoints]); a setting that could place more is an error. Breakpoints
// are never placed on thinking blocks, which cannot carry them. The typed [Cache] (rather than
// loose Extra keys for each part) keeps a misspelt setting from compiling and is checked once,
// in [New]; the Extra key exists because the per-call [chat.Options] are provider-neutral.
//
// The SDK makes its own OpenTelemetry span per request (anthropic.messages.create, without
// message content unless asked), which nests under the client's chat span;
// option.WithoutOpenTelemetry() in [Config.SDKOptions] turns it off.
//
// The Messages API requires max_tokens on every request. When neither the call's
// [chat.Options.MaxTokens] nor [Config.MaxTokens] sets it, [DefaultMaxTokens] (4096) is sent:
// every current and legacy Claude model accepts it, and it is long enough for answers and tool
// calls. With extended thinking and no explicit limit, the default is added on top of the thinking
// budget, since max_tokens must exceed the budget.
//
// # Mapping
//
//   - System messages, wherever they are in the conversation, become the top-level system
//     prompt, in order.
//   - Tool definitions become custom tools with input_schema. Anthropic requires an object at the
//     schema's root: a schema without a type gets "type":"object", an empty schema becomes
//     {"type":"object","properties":{}}, and a schema of another type is an error.
//   - A tool name outside the API's rule (^[a-zA-Z0-9_-]{1,64}$: dots, MCP names, long or
//     non-ASCII names) is sent under a legal, deterministic name distinct from the request's
//     others, in the tools, the tool choice and the history; the model's calls come back under
//     the tool's own name.
//   - ToolChoice "" or "auto" → auto, "none" → none, "required" (or "any") → any, any other
//     value → that tool; ParallelToolCalls=false sets disable_parallel_tool_use.
//   - ResponseFormat → output_config.format (native structured outputs, always strict).
//   - An assistant message is sent as its thinking blocks, then its text, then its tool_use
//     blocks, as the API requires when thinking is on. Only reasoning whose Provider is
//     "anthropic" is sent; reasoning from other providers is dropped.
//   - Tool results become tool_result blocks (is_error set for failed calls) of a user message;
//     consecutive messages that map to the same role are merged into one, so the results of one
//     round travel in one user message.
//   - A response's text and tool_use blocks become one generation with text and tool calls;
//     thinking and redacted_thinking blocks become [chat.Reasoning] values with Provider
//     "anthropic" (Text and Signature, or Encrypted holding the redacted data).
//   - Stop reasons: end_turn and stop_sequence → [chat.FinishStop], max_tokens and
//     model_context_window_exceeded → [chat.FinishLength], tool_use → [chat.FinishToolCalls],
//     refusal → [chat.FinishContentFilter]; others (pause_turn) pass through unchanged.
//   - Usage: InputTokens counts all input, including cache reads and writes;
//     CachedInputTokens the cache reads (cache_read_input_tokens), CacheWriteInputTokens the
//     cache writes (cache_creation_input_tokens); ReasoningTokens the thinking tokens when
//     reported.
//
// The Messages API has one generation per request: [chat.Options.N] above 1 is an error
// ([ErrUnsupported]), and Seed is ignored (Anthropic has no seed).
//
// # Tool search
//
// [chat.Options.ToolSearch] marks every tool defer_loading but the loaded ones (and the one the
// tool choice names) and asks for the beta feature (advanced-tool-use-2025-11-20 on Anthropic's
// API, tool-search-tool-2025-10-19 on Bedrock and Vertex AI). [chat.ToolSearchRegex] adds the
// tool_search_tool_regex_20251119 tool, [chat.ToolSearchBM25] and [chat.ToolSearchServer] the
// tool_search_tool_bm25_20251119 tool; the server_tool_use and tool_search_tool_result blocks of
// the answer become [chat.Message.ServerTools] (streamed whole once complete, the searches counted
// in [chat.Usage.ServerToolCalls]) and go back unchanged, before the text, to requests that search
// on the server. With [chat.ToolSearchClient] the caller's search tool is sent in full and its
// results, which must be [chat.ToolSearchResult]'s, go as tool_reference blocks of the deferred
// tools they name (a failed search as its text, one that found nothing as a sentence). The prompt
// cache's tools breakpoint goes on the last tool not deferred. The recordings of tool search hold
// answers only: requests are checked against the SDK's types and Anthropic's documented shapes.
//
// # Provider-specific options
//
// [chat.Options.Extra] keys read by this package (other keys are ignored; a value of the wrong
// type is an error naming the key):
//
//   - [ExtraThinkingBudget] ("anthropic.thinking_budget", int): extended thinking with that
//     budget in tokens (at least 1024); 0 turns off the thinking [Config.ThinkingBudget] enables.
//   - [ExtraAdaptiveThinking] ("anthropic.adaptive_thinking", bool): adaptive thinking, for
//     models that decide how much to think.
//   - [ExtraTopK] ("anthropic.top_k", int): top_k sampling.
//   - [ExtraBody] ("anthropic.body", map[string]any): fields set in the JSON request body,
//     overriding those wield sets, for API fields it does not map.
//   - [ExtraRequestOptions] ("anthropic.request_options", []option.RequestOption): SDK request
//     options for this call, e.g. option.WithHeader or option.WithJSONSet for any field wield
//     does not map.
//   - [ExtraParams] ("anthropic.params", func(*anthropic.MessageNewParams)): edits the SDK
//     request after wield has built it.
//   - [ExtraCache] ("anthropic.cache", [Cache], *Cache or bool): the call's prompt-caching
//     breakpoints, replacing [Config.Cache]; true means [CacheAuto], false or a nil *Cache none.
//
// # Errors and retries
//
// HTTP errors, and error events inside a stream, are returned as [*chat.ProviderError] carrying
// the status, Anthropic's error type and message, and the SDK error. The SDK retries 408, 409,
// 429, 5xx and connection failures with exponential backoff, honouring Retry-After and
// Retry-After-Ms; [Config.MaxRetries] sets how often (default 2). A stream that ends before
// message_stop is an error, never a silently short answer.
package anthropic
