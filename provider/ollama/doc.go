// Package ollama is a chat.Model for models served by Ollama, on Ollama's own Go client
// (github.com/ollama/ollama/api), talking to /api/chat.
//
//	m, err := ollama.New(ollama.Config{Model: "llama3.2"}) // server from $OLLAMA_HOST
//	resp, err := m.Call(ctx, &chat.Prompt{Messages: []chat.Message{chat.User("Hi")}})
//
// # Mapping
//
// Every request says "stream" explicitly (Ollama streams when it is left out): false for Call,
// true for Stream. Messages map one to one, except that each tool result becomes its own "tool"
// message carrying tool_name and, when the call had one, tool_call_id; Ollama has no error flag,
// so a failed call's text is sent prefixed with "Error: ". Tool-call arguments, a JSON object on
// the wire, are chat.ToolCall.Arguments text with the key order kept. Calls without an id get a
// made-up one, never sent back. done_reason "stop" is chat.FinishStop (chat.FinishToolCalls when
// the answer called tools), "length" chat.FinishLength, others pass through; usage comes from
// prompt_eval_count and eval_count. Thinking (asked for with [ExtraThink]) is kept as
// chat.Reasoning with Provider "ollama" and sent back in the assistant message's "thinking".
//
// Tool schemas are reduced to what Ollama's tool format holds (type, description, enum, items,
// anyOf, properties, required), which is also all its server reads: $ref is inlined (recursion
// cut), const becomes enum and oneOf anyOf. A schema that would pass 256 KiB once inlined (its
// definitions referring to each other many times over) is refused with an error naming the tool.
//
// # Images
//
// Ollama's messages hold one text and a list of images (raw bytes, for vision models such as
// llava, gemma3 or llama3.2-vision). A message's text parts and text documents become its text, in
// order; its images go in images, a tool result's on its tool message (the server reads images on
// messages of any role). Ollama takes no image URLs, PDFs or audio: such a part fails the call with
// a [*content.Unsupported] before anything is sent, with the documented way round it (download
// the image, convert the document to text or images).
//
// # Options
//
// chat.Options map to the request: Model, Temperature, TopP, Seed, MaxTokens (num_predict),
// Stop and ResponseFormat ("format": the schema, or "json"). Ollama has no tool_choice: "auto"
// offers the tools, "none" offers none, and "required" or a tool name is an error rather than a
// promise Ollama cannot keep; ParallelToolCalls is not sent; N above 1 is an error. Ollama-
// specific settings come from the Extra keys ExtraThink, ExtraOptions (num_ctx, top_k, …),
// ExtraKeepAlive and ExtraConfigure; [Config.Configure] adjusts every request.
//
// Ollama documents no rule for tool names; names reach the model's chat template as they are.
// Open models are trained on OpenAI-style function names, and some templates read a dot as a
// separator, so a name outside OpenAI's rule (^[a-zA-Z0-9_-]{1,64}$) is sent under a legal,
// deterministic name distinct from the request's others, in the tools, the calls and tool_name;
// the model's calls come back under the tool's own name.
//
// # Errors and retries
//
// Error answers ({"error": "…"} with a 4xx or 5xx status) are *chat.ProviderError. Ollama's
// client does not retry, so this package does: requests failing with 408, 409, 429, 5xx or a
// broken connection are retried ([Config.MaxRetries], default 2) with exponential backoff
// honouring Retry-After. The client ignores a stream cut short; this package reports an answer
// that ends before its "done": true line as an error wrapping the read error, or
// io.ErrUnexpectedEOF.
//
// # Embeddings
//
// [NewEmbedder] returns an [Embedder] on /api/embed, which backs toolsearch's vector index. It
// sends the texts in batches ([EmbedderConfig.BatchSize]), checks that the answer holds one
// vector per text, and retries and reports errors as above. Models trained with instructions
// (nomic-embed-text, embeddinggemma) want one [EmbedderConfig.Prefix] for the tools and another
// for the queries: build two Embedders and give the second to the index as its query embedder.
package ollama
