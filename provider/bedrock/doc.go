// Package bedrock is a [chat.Model] for the Amazon Bedrock Converse API (Converse and
// ConverseStream), built on the AWS SDK for Go v2 (service/bedrockruntime): one request shape
// for every model Bedrock serves with tool use — Amazon Nova, Meta Llama, Mistral, Cohere
// Command, DeepSeek, Kimi, Anthropic Claude and the rest. For Claude with the full Messages API
// (thinking, server tools, cache_control everywhere), provider/anthropic's NewBedrock speaks
// Bedrock's InvokeModel instead.
//
//	m, err := bedrock.New(ctx, bedrock.Config{Model: "us.amazon.nova-2-lite-v1:0", Region: "us-east-1"})
//	resp, err := m.Call(ctx, &chat.Prompt{Messages: []chat.Message{chat.User("Hi")}})
//
// # Configuration and credentials
//
// [New] loads the AWS configuration with config.LoadDefaultConfig (environment, shared files and
// profiles, SSO, web identity, container and instance roles) unless [Config.AWS] gives one;
// [Config.Region] and [Config.Profile] pick the region and profile. Requests are signed with
// SigV4. A Bedrock API key ([Config.APIKey], or $AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer
// token instead, over HTTPS only. [Config.BaseURL] replaces the regional endpoint.
//
// # Mapping
//
//   - System messages, wherever they are, become the system blocks, in order; user, assistant
//     and tool messages become user/assistant turns, consecutive turns of one role merged, as
//     Converse requires. Empty texts are not sent (Converse refuses blank text blocks).
//   - Tool definitions become toolConfig.tools[].toolSpec with the schema as inputSchema.json
//     (an object at the root: a missing type becomes "object", a missing properties {}; another
//     root type is an error). Numbers in schemas and arguments keep their digits (15.0 stays
//     15.0).
//   - Tool names outside what Converse accepts ([a-zA-Z0-9_-], at most 64) are sent under legal,
//     deterministic, distinct names and mapped back in answers and streams, so tools and callers
//     only see their own names (provider/internal/toolname).
//   - ToolChoice "" sends none (the model decides), "auto" → {auto}, "required" or "any" →
//     {any}, a tool's name → {tool}; ParallelToolCalls is not expressible and ignored.
//   - Tool calls become toolUse blocks, results toolResult blocks (status "error" for failed
//     calls) in a user turn. Converse refuses toolUse and toolResult blocks in a request without
//     toolConfig; when the history holds them and the request offers no tool (none given, or
//     ToolChoice "none", which Converse cannot express), the tools the history used are
//     declared again, without parameters, described as unavailable in this turn.
//   - MaxTokens, Temperature, TopP and Stop → inferenceConfig; ResponseFormat → outputConfig
//     (json_schema); Seed is ignored (Converse has none); N above 1 is an error ([ErrUnsupported]).
//   - Answers: text blocks joined; toolUse → tool calls (arguments as compact JSON; the SDK
//     decodes them into a map, so keys come in sorted order); reasoningContent → [chat.Reasoning] with
//     Provider "bedrock" (Text and Signature, or Encrypted holding the base64 of redacted
//     content), sent back first in the assistant turn as Claude requires in tool loops. Converse
//     names no response: Response.ID is the AWS request id, Response.Model the model requested.
//   - Stop reasons: end_turn and stop_sequence → stop, max_tokens and
//     model_context_window_exceeded → length, tool_use → tool_calls, guardrail_intervened and
//     content_filtered → content_filter, malformed_model_output and malformed_tool_use → error.
//   - Usage: InputTokens counts all input (Bedrock's inputTokens plus cacheReadInputTokens and
//     cacheWriteInputTokens), CachedInputTokens the cache reads, CacheWriteInputTokens the cache
//     writes; TotalTokens is InputTokens + OutputTokens.
//
// # Images, documents and audio
//
// Content parts become Converse's image (PNG, JPEG, GIF, WebP), document (PDF, CSV, DOC, DOCX,
// XLS, XLSX, HTML, TXT, MD) and audio blocks, as bytes or s3:// locations, in order; a tool
// result takes text, images and documents (AWS documents images in tool results for Amazon Nova
// and Claude models only; other models answer with a validation error). Document names are made
// of the characters Converse allows (ASCII letters and digits, single spaces, hyphens,
// parentheses, brackets; 200 at most) and numbered so that they differ within a request. Other
// URLs and types, audio in a tool result, and images over 3.75 MB or documents over 4.5 MB as
// bytes (the Converse limits; content.ErrTooLarge) fail the call before anything is sent, as
// does a malformed part (content.Part.Validate); which models read which media is the model's own
// (see the Bedrock model cards). Images in an answer (image blocks, or images streamed in pieces)
// arrive as image parts in their place among the text.
//
// # Streaming
//
// ConverseStream answers are AWS event-stream frames (messageStart, contentBlockStart,
// contentBlockDelta, contentBlockStop, messageStop, metadata), decoded by the SDK. Stream yields
// text pieces as they arrive, a tool call's id and name from its contentBlockStart and then its
// input in the fragments Bedrock streams (joined by [chat.Aggregate]; "{}" for a call without
// input), reasoning blocks whole when they stop, the finish reason, and the usage last. A stream
// that ends before messageStop and metadata is an error wrapping io.ErrUnexpectedEOF
// ([ErrIncompleteStream]), never a silently short answer.
//
// # Prompt caching
//
// [Cache] places cachePoint blocks after the tools, the system prompt and the last turns;
// [Config.Cache] sets them for every request, [ExtraCache] for one call, and [CacheAuto] (tools,
// system, last turn) suits tool loops. At most four per request ([MaxCachePoints]).
//
// # Provider-specific options
//
// [chat.Options.Extra] keys (a value of the wrong type is an error naming the key):
//
//   - [ExtraAdditionalFields] ("bedrock.additional_fields", map[string]any):
//     additionalModelRequestFields, the model's own parameters (top_k; Claude's
//     {"thinking":{"type":"enabled","budget_tokens":2048}}; Nova's reasoningConfig).
//   - [ExtraCache] ("bedrock.cache", [Cache], *Cache or bool): the call's cache checkpoints.
//   - [ExtraInput] ("bedrock.input", func(*bedrockruntime.ConverseInput)): edits the request
//     after wield built it (guardrails, request metadata, performance and service tiers), for
//     Converse and ConverseStream alike.
//
// # Errors and retries
//
// Bedrock's error answers, and exceptions inside a stream, are returned as [*chat.ProviderError]
// with the HTTP status (for stream exceptions, the status the API reference gives them), the
// error code as Type (ThrottlingException, ValidationException, AccessDeniedException,
// modelStreamErrorException, …) and Bedrock's message. The AWS SDK's standard retryer retries
// throttling, ModelNotReadyException, 5xx answers and connection errors with exponential backoff
// and jitter: [DefaultMaxAttempts] attempts, waits up to [DefaultMaxBackoff], and the SDK's retry
// quota that stops retry storms (MaxRetries, [Config.MaxBackoff], [Config.Retryer]).
// A stream is retried only until its first event.
//
// # How it was tested
//
// Against recorded Bedrock traffic (testdata/converse): two Converse tool loops (Amazon Nova 2
// Lite, Kimi K2.5: toolSpec → toolUse → toolResult → answer) and one ConverseStream answer with a
// call streamed in fragments (Claude 3 Sonnet). Every request wield sends is compared with the
// recorded one and every answer with an independent reading of the recording. No public
// recording exists of a ConverseStream tool loop, reasoning, prompt caching, renamed tools, media
// (images, documents, audio; images in tool results or answers), throttling or stream
// exceptions: for these the tests serve answers written by the AWS SDK's own
// serializers (its restJson1 protocol and event-stream encoder, from the SDK's types) on
// 127.0.0.1, and check the requests against the Converse shapes of the Bedrock API reference.
//
// The AWS SDK closes a request's body when the response headers arrive, while net/http may still
// read it once more; the SDK's body then reports io.EOF as a failure through WriteTo and
// net/http closes the connection under the response (a stream cut short, one in a hundred from
// a fast server). This package hands net/http bodies without WriteTo, which end cleanly.
package bedrock
