// Package gemini is a chat.Model for Google's Gemini models, on the official Go SDK
// (google.golang.org/genai): the Gemini Developer API (generativelanguage v1beta) by default, or
// Vertex AI through [Config.ClientConfig].
//
//	m, err := gemini.New(ctx, gemini.Config{Model: "gemini-2.5-flash"}) // key from $GEMINI_API_KEY
//	resp, err := m.Call(ctx, &chat.Prompt{Messages: []chat.Message{chat.User("Hi")}})
//
// # Mapping
//
// System messages become the system instruction (text only, as the API takes it: media there
// is refused); user messages user turns; assistant messages model turns; tool messages
// functionResponse parts of a user turn (consecutive tool messages share one turn). A tool
// result is sent as the response object Gemini requires: a JSON object result as it is, any
// other result as {"result": …}, a failed call (IsError) as {"error": …}.
//
// Function calls arrive whole; each gets a distinct [chat.ToolCall.Index] in its candidate.
// Models that send no call id get a stable made-up one, which is never sent back: the API
// matches those calls by name and order. Candidates become generations; a STOP finish after
// function calls is reported as chat.FinishToolCalls; SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII and the like as chat.FinishContentFilter; MALFORMED_FUNCTION_CALL,
// UNEXPECTED_TOOL_CALL and TOO_MANY_TOOL_CALLS as chat.FinishError; a blocked prompt as one
// generation finished with chat.FinishContentFilter. Usage counts thoughts in OutputTokens and
// ReasoningTokens, and cached content in CachedInputTokens.
//
// # Thinking and signatures
//
// A thoughtSignature on a functionCall part is kept in [chat.ToolCall.Signature] (base64, as on
// the wire) and sent back on the same call next turn, as Gemini 3 requires. Thought parts
// (thought: true, asked for with [ExtraIncludeThoughts]) become chat.Reasoning items with
// Provider "gemini" and their text, never part of the answer's text. Every other signature goes
// back on the part it came with, in the order it came, as Google documents: the answer's text
// stays in [chat.Message.Content] until a signed part arrives, and from then on its parts are
// [chat.Message.Parts], each with its own signature ([content.Part.Signature]); a signed part is
// never merged with the text after it in a called answer (a stream's unsigned chunks are pieces
// of the part before them and join it). A signature that came on its own empty part (Gemini 3's
// last streamed chunk, {"text":"","thoughtSignature":…}) goes back as that empty part, "text":""
// included, which the SDK would otherwise leave out. A message keeps its content before its tool
// calls, so a signature-only part that came after the function calls is kept as a Reasoning item
// with ID "after-calls" and only a Signature, and goes back after the calls. Conversations stored
// before messages had parts kept a text signature as a Reasoning item with only a Signature; it is
// still sent back on the text. Reasoning from other providers is dropped.
//
// # Images, documents and audio
//
// Content parts map onto Gemini parts in order: text, inline bytes (inlineData: images, PDFs and
// other documents, audio, with their media type) and URLs (fileData with the URI and media type:
// gs:// and Files API URIs, and on models that take them, https and YouTube URLs; a URL part
// without a media type is refused). A part's name goes as the media's display name on Vertex AI
// only: Google's SDKs refuse a display name on a prompt's media for the Gemini Developer API.
//
// A tool result's text goes in the functionResponse's response object; its images and documents
// go in the functionResponse's parts beside it (multimodal function responses), each with its
// name as display name, which the response object may reference as {"$ref": name}. Google
// documents these for Gemini 3 models (images PNG, JPEG and WebP, PDF and plain text); earlier
// models ignore or refuse them. The Gemini API takes a function response's media as bytes only,
// so a tool-result part by URL is refused there ([*content.Unsupported]); Vertex AI takes file
// URIs too. Images the model draws (inlineData in an answer) arrive as image parts, in their
// place among the text, with their signatures.
//
// # Tool schemas
//
// Gemini reads tool parameters either as JSON Schema (parametersJsonSchema) or as its own
// OpenAPI-style subset (parameters). The default, [SchemaJSON], sends the schema wield infers
// unchanged: Gemini 2.5 and later accept it whole (Google's own agent kit sends it so), and the
// subset cannot express maps (additionalProperties), recursive types or non-string enums.
// [SchemaSubset] converts instead (see [ConvertSchema]), for older models or gateways that accept
// only the subset.
//
// # Options
//
// chat.Options map to the request: Model, Temperature, TopP, Seed, MaxTokens, Stop, N
// (candidateCount), Tools, ToolChoice ("auto" → AUTO, "none" → NONE, "required" → ANY, a tool
// name → ANY limited to that function) and ResponseFormat (JSON output with a schema). Gemini
// has no switch for parallel calls, so ParallelToolCalls is not sent. A tool name outside the
// API's rule (a letter or '_' first, then letters, digits, '_', '.' and '-', 64 at most: MCP
// names with '/' or ':', long or non-ASCII names) is sent under a legal, deterministic name
// distinct from the request's others, in declarations, calls and function responses alike; the
// model's calls come back under the tool's own name. Gemini-specific settings
// come from the Extra keys ExtraTopK, ExtraThinkingBudget, ExtraThinkingLevel,
// ExtraIncludeThoughts, ExtraSafetySettings, ExtraCachedContent and ExtraConfigure (a function
// that may change anything in the SDK's request configuration); [Config.Configure] does the same
// for every call.
//
// # Errors and retries
//
// API errors are *chat.ProviderError with the HTTP status, Gemini's status name (Type), the
// ErrorInfo reason (Code) and message. Requests failing with 408, 409, 429, 5xx or a broken
// connection are retried ([Config.MaxRetries], default 2) with exponential backoff, waiting as
// long as Retry-After or Gemini's RetryInfo asks (up to a minute). A stream that ends before
// every candidate has a finish reason yields an error wrapping io.ErrUnexpectedEOF.
//
// # Embeddings
//
// [NewEmbedder] returns an [Embedder] on the embedding API (batchEmbedContents; Vertex AI's
// endpoints through [EmbedderConfig.ClientConfig]), which backs toolsearch's vector index. It
// sends the texts in as few requests as the API's limits allow, checks that the answer holds one
// vector per text, and retries and reports errors as above. Gemini embeds a text for the use it
// is put to ([EmbedderConfig.TaskType]): for tool search, embed the tools with
// [TaskRetrievalDocument] and the searches with [TaskRetrievalQuery], two Embedders given to
// toolsearch.NewVector as its embedder and its VectorConfig.QueryEmbedder.
package gemini
