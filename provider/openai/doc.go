// Package openai provides [chat.Model] implementations on OpenAI's APIs, built on the official
// Go SDK (github.com/openai/openai-go/v3):
//
//   - [New] returns a [ChatModel] on the Chat Completions API, which OpenAI-compatible servers
//     (vLLM, llama.cpp, LM Studio, Ollama, OpenRouter, Groq, DeepSeek, …) implement too;
//   - [NewResponses] returns a [ResponsesModel] on the Responses API, OpenAI's newer API, which
//     keeps a reasoning model's reasoning across the turns of a tool loop;
//   - [NewMistral] returns a [ChatModel] on Mistral's chat completions API, whose differences
//     from OpenAI's (tool-call ids, tool messages, a stricter request schema, Magistral's
//     thinking chunks) it handles.
//
// Both take a [Config]. The API key and base URL default to $OPENAI_API_KEY and
// $OPENAI_BASE_URL (the SDK also reads $OPENAI_ORG_ID and $OPENAI_PROJECT_ID). A compatible server
// is reached by its base URL, version path included:
//
//	m, err := openai.New(openai.Config{BaseURL: "http://localhost:8000/v1", Model: "Qwen/Qwen3-8B"})
//
// Requests carry only the fields a call sets, so servers that reject fields they do not know keep
// working: stream_options only when streaming, n only above 1, tool_choice and
// parallel_tool_calls only with tools, strict only in strict mode. The token limit goes in
// max_completion_tokens to api.openai.com and Azure OpenAI and in max_tokens elsewhere
// ([Config.MaxTokensField]).
//
// # Azure OpenAI
//
// With [Config.Azure] both models talk to Azure OpenAI, the deployment named as the model:
//
//	m, err := openai.New(openai.Config{Azure: &openai.Azure{
//		Endpoint: "https://my-resource.openai.azure.com", Deployment: "gpt-5-mini", APIKey: key}})
//
// An empty [Azure.APIVersion] uses the v1 API ({endpoint}/openai/v1/chat/completions and
// /responses, no api-version); a version uses the versioned deployment routes
// ({endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…), through the SDK's
// azure package. A key goes in the Api-Key header; [Azure.TokenCredential] authenticates with
// Microsoft Entra ID instead, with any azcore.TokenCredential (azidentity's credentials, which
// this package does not import, so a program that uses keys does not build them). Nothing of
// OpenAI's environment ($OPENAI_API_KEY, organization, project) reaches Azure. Azure's additions to
// the answers (prompt_filter_results, content_filter_results, content_filters, a first stream
// chunk without choices) are ignored; a content filter's finish reason is
// [chat.FinishContentFilter]. [chat.Info] names the provider [AzureProvider].
//
// # Settings
//
// Model, temperature and max tokens come from each call's [chat.Options], falling back to the
// Config. TopP, Seed, Stop, N (Chat Completions only), ToolChoice ("auto", "none", "required" or a
// tool name), ParallelToolCalls and ResponseFormat (the APIs' json_schema structured output, or
// json_object without a schema) are mapped too. Provider-specific settings travel in
// [chat.Options.Extra] under the keys [ExtraBody] (any JSON field), [ExtraParams] (a function
// editing the SDK's request parameters), [ExtraRequestOptions] (SDK request options for one
// call), [ExtraReasoningEffort], [ExtraReasoningSummary], [ExtraStore] and [ExtraStrictTools].
// The Responses API has no n, seed or stop: setting them is an error wrapping [ErrUnsupported].
//
// # Tools and strict mode
//
// Each tool's [tool.Definition] becomes a function tool, its input schema sent with its
// properties in their declared order. With [Config.StrictTools] (or [ExtraStrictTools]) the
// functions are sent with strict set, so the model's arguments always match the schema. Strict
// mode only accepts objects that list every property in required and set additionalProperties
// to false, so each schema is rewritten: every object gets all its properties required and
// additionalProperties false, and each property that was optional becomes nullable (its type
// gains "null", its enum null, or it is wrapped in anyOf with {"type": "null"}). The model then
// sends null for an optional argument it leaves out; those nulls are removed from the arguments
// before they are returned (in a stream, the arguments of such a call arrive in one piece when
// the call is complete), so the tool sees the arguments its own schema describes. A tool whose
// schema strict mode cannot express — free-form objects or maps, nested objects without
// properties — is sent unchanged with strict off. A strict [chat.ResponseFormat] schema is
// rewritten the same way.
//
// A model's tool calls come back as [chat.ToolCall]s with the API's call ids; results go back as
// one "tool" message (Chat Completions) or one function_call_output item (Responses) per
// [chat.ToolResult], with the same id. The APIs have no error flag for results, so a result with
// IsError set is sent as "Error: " followed by its text. A refusal comes back as the message's
// text. Chat Completions' legacy function_call answers are read as tool calls without id (finish
// reason tool_calls); calls without id get synthetic ids when sent back, and their results the
// same ids.
//
// # Tool names
//
// Both APIs accept function names matching ^[a-zA-Z0-9_-]{1,64}$. A tool whose name is outside
// that rule (dotted or slashed MCP names, names over 64 bytes, non-ASCII names) is sent under a
// wire name: the name with each refused character replaced by '_' (accents dropped first) when
// that is free, else that, cut short, followed by '_' and 8 hex digits of the name's SHA-256. Wire
// names are deterministic and distinct within a request; tool choice and the calls of the history
// use them too, and the model's calls come back under the tool's own name, so users and tools
// never see them.
//
// # Streams
//
// Stream yields one [chat.Response] per chunk or event that carries something, with tool-call
// argument fragments keyed by [chat.ToolCall.Index], so [chat.Aggregate] joins them. Chat
// Completions streams end with a usage-only chunk (choices: []), asked for with
// stream_options.include_usage ([Config.DisableStreamUsage] stops asking); several generations
// (N > 1) arrive interleaved, told apart by [chat.Generation.Index]. A stream that ends without
// a finish reason for each generation, or without the Responses API's final event, fails with
// [ErrTruncated]; a connection dropped mid-body fails with the transport's error; errors the API
// reports inside a stream (Responses "error" and "response.failed" events, an error object in a
// Chat Completions stream) fail with a [*ResponseError]. Stopping the iteration early closes the
// connection.
//
// # Reasoning (Chat Completions)
//
// OpenAI's Chat Completions API returns no reasoning, but compatible servers do, in one of three
// fields of the assistant message: reasoning_content (DeepSeek, vLLM, llama.cpp, xAI, Moonshot,
// Z.ai), reasoning (OpenRouter, Groq, Cerebras) or reasoning_details (OpenRouter: typed entries,
// reasoning.text with an optional signature, reasoning.summary, reasoning.encrypted; for Gemini 3
// models the encrypted entry is the thought signature, tied to its tool call by id). It is read
// into [chat.Message.Reasoning] in order, one entry per reasoning_details entry (the plain field
// that repeats their text is then ignored) or one entry for a plain field, each with the Provider
// [ReasoningProvider] of its field. A reasoning_details entry keeps its text or summary in Text,
// its signature and id, and the whole entry, as the server sent it, in Encrypted. Streams send
// reasoning in fragments; an entry is yielded whole once the next entry, text, a tool call or the
// finish reason shows it complete (fragments of one reasoning_details entry share its type and
// index), because [chat.Aggregate] keeps reasoning entries as they come.
//
// On the next turn each assistant message's reasoning goes back in the field it came in, entries
// as they came ([Config.ReasoningField] chooses one field for servers that want another, or
// none). DeepSeek requires reasoning_content back on turns with tool calls, and OpenRouter the
// reasoning_details of Gemini 3 and signed Claude reasoning; other providers' reasoning, and the
// Responses API's, is not sent.
//
// Usage means what it means for every provider: OutputTokens include reasoning tokens and
// ReasoningTokens say how many. xAI counts reasoning apart from completion_tokens (its
// total_tokens is prompt + completion + reasoning tokens); such reasoning is added to
// OutputTokens. CachedInputTokens is prompt_tokens_details.cached_tokens and
// CacheWriteInputTokens prompt_tokens_details.cache_write_tokens (OpenAI, OpenRouter); the
// Responses API's input_tokens_details holds the same two.
//
// # Reasoning (Responses API)
//
// Reasoning items of the output are kept in [chat.Message.Reasoning], one entry per summary part
// (one without text when the item has no summary), each with the item's id, the first with its
// encrypted content. A function_call that follows reasoning is linked to it by its item id, kept
// as one more entry without text: {ID: the item id (fc_…), Signature: the call id}. Being
// entries of OpenAI's reasoning, these never reach other providers, as a call's own Signature
// would. On the next turn the assistant message's reasoning items are sent back as input items
// before its function calls, which carry their item ids again, so the model continues its
// reasoning; reasoning of other providers is dropped, and so is the reasoning of an assistant
// message without tool calls, which the API would ignore.
//
// Whether a reasoning item can be sent back depends on storage. Responses are stored by default
// and the API finds a reasoning item by its id. With [Config.Store] false (zero data retention)
// it cannot: the request then asks for the items' encrypted content (include:
// ["reasoning.encrypted_content"], see [Config.EncryptedReasoning]) and only items that carry it
// are sent back. Output items of types this package does not handle (hosted tools such as
// tool_search_call) are skipped.
//
// # Images, documents and audio
//
// User messages take content parts ([content.Part]) in order. Chat Completions: images (JPEG,
// PNG, GIF, WebP) as image_url parts, by data URL or URL; PDFs as file parts (file_data as a data
// URL, with the file name); WAV and MP3 audio as input_audio parts; text documents as text. The
// Responses API: images as input_image, documents as input_file (bytes as a data URL, or a
// file_url), text documents as input_text; it takes no audio. System and assistant messages are
// text in both APIs.
//
// Tool results: the Responses API takes images and files in function_call_output, as an output
// array beside the text. Chat Completions tool messages take text only, so a result's images and
// files follow the tool messages in one user message, each group introduced by the call it came
// from, and the tool message says they follow; this is the arrangement OpenAI's models read for
// tool output that is not text. Mistral takes images but no file parts.
//
// A part an API cannot take fails the call with a [*content.Unsupported] before anything is sent.
//
// # Errors and retries
//
// An HTTP 4xx or 5xx answer is a [*chat.ProviderError] with the status and the API's message,
// also for compatible servers whose error bodies are not shaped like OpenAI's. The SDK retries
// 408, 409, 429, 5xx and connection errors with exponential backoff, honouring Retry-After and
// Retry-After-Ms ([Config.MaxRetries]); cancelling the context stops a request and its retries
// at once.
//
// # How this package is tested
//
// Against recorded traffic where it exists (testdata/README.md): OpenAI's Chat Completions and
// Responses, Azure OpenAI (both URL shapes), and the tool loops of OpenAI-compatible servers that
// return reasoning (OpenRouter, Z.ai, Moonshot, Avian, Cerebras, DeepSeek). Where no recording
// has the request side, requests are checked against the published API description with steady:
// OpenAI's spec for every request shape of both APIs, Mistral's spec for the Mistral model (only
// Mistral's answers were recorded). The shapes of Mistral's answers no recording has (calls
// without index in one delta, thinking chunks) and xAI's usage are tested on answers built in
// those shapes from the API descriptions.
//
// # Embeddings
//
// [NewEmbedder] returns an [Embedder] on the Embeddings API (text-embedding-3-small by default,
// or any model of a compatible server), which backs toolsearch's vector index. It sends the
// texts in as few requests as the API's limits allow (2048 inputs and 300,000 tokens each),
// matches vectors to texts by their index, and retries and reports errors as above. OpenAI's own
// API (and Azure OpenAI, through [EmbedderConfig.Azure]) is asked for base64 vectors, a quarter
// of the size of decimal ones and exact; other servers answer in their default, decimal floats.
// Either form is read.
package openai
