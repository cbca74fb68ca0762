// Package toolsearch lets a model work with a large tool catalog without being sent all of it:
// the model is given one search tool, and the tools it finds are added to the next requests.
//
// An agent connected to a few services easily carries 50+ tools and tens of thousands of tokens
// of definitions before the conversation starts, and models choose worse among many similar
// tools. The [Advisor] extends the tool-calling loop of the client: on each turn it indexes the
// request's tools in an [Index] (only when the tool set changed), sends the model the search
// tool instead of the catalog, and adds the definitions each search finds to the following
// requests of the turn.
//
// The search tool takes one query per capability a request needs ("weather forecast city",
// "send email"): each query is searched on its own and the results are merged by [Merge], so
// that every capability gets its best tools. One query naming several capabilities tends to
// find the tools of the one it says most about.
//
// Tools that must run first come along: when a tool found requires an input that exactly one
// tool of the set returns and several tools require (the session token of an account service,
// returned by its login), that tool is returned too, and the search tool tells the model why
// ([Prerequisites]). Requests never mention such inputs ("delete my account"), so no query
// finds their source. Output schemas say what a tool returns: MCP servers advertise them, and
// tools built from typed Go functions have them.
//
// Three indexes come with the package:
//   - [KeywordIndex]: BM25F over tool names, descriptions and parameter docs, with identifier
//     splitting, their abbreviations expanded and English stemming; fast, offline, the default;
//   - [RegexIndex]: regular expressions over names, then descriptions;
//   - [VectorIndex]: cosine similarity of embeddings from an [Embedder].
//
// Indexes keep one tool set per session, so conversations never see each other's tools. The
// advisor indexes each distinct tool set once, shared by every conversation that has it, and
// forgets conversations by an [Eviction] strategy ([LRU] by default), evaluated lazily as turns
// start and end; a tool set is cleared with the last conversation using it.
//
// A large catalog is best given as a [Catalog] ([Config].Catalog or [ParamCatalog]): it is read
// and hashed once, when it is built, so that a turn costs the same with fifty tools or fifty
// thousand, instead of reading every definition of the request on every turn.
//
// # Native tool search
//
// Anthropic and OpenAI's Responses API search deferred tools themselves. [Config].Native hands
// the search to them, behind the same advisor: every searchable tool is sent on every request,
// marked deferred (chat.Options.ToolSearch), beside the pinned ones, and the provider shows the
// model only what a search finds. Two ways:
//   - the provider's own search (chat.ToolSearchServer, ToolSearchRegex, ToolSearchBM25):
//     Anthropic's regex or BM25 tool search tool, OpenAI's hosted search. The advisor indexes
//     nothing; what the server did comes back in chat.Message.ServerTools and stays in the
//     conversation, and Usage.ServerToolCalls counts the searches;
//   - the advisor's own search, the provider loading what it finds (chat.ToolSearchClient): the
//     model calls the advisor's search tool, which searches the advisor's [Index] (keyword,
//     regex, vector: yours), and its result loads the tools found, as Anthropic tool_reference
//     blocks or an OpenAI client-executed tool_search output.
//
// A provider without native search (Gemini, Ollama, Bedrock Converse, Chat Completions, and
// Anthropic's and OpenAI's for the kinds they lack) refuses the request with
// chat.ErrToolSearchUnsupported before sending it; the turn fails, or with
// [Config].NativeFallback goes on with the advisor's own search.
//
// When to choose which:
//   - The advisor's own search (Native unset) works with every provider and every model, keeps
//     the search in your hands (index, ranking, the results the model reads) and sends only the
//     tools found. Each search changes the request's tools, so a prompt cache holds only up to
//     them, and the model sees the found tools from its next step.
//   - The provider's own search costs no index and no embedding calls, and the tools sent never
//     change, so a prompt cache holds across the whole loop; the provider's search was tuned
//     for its models. But every tool's definition travels on every request (deferred ones stay
//     out of the model's context, yet the request grows with the catalog), the ranking is the
//     provider's, and only recent models have it (Claude Sonnet 4.5 and Opus 4.5 on, GPT-5.4 on,
//     when this was written).
//   - The client's search with the provider's loading keeps your index and the stable, cached
//     tools list; choose it when the provider's ranking does not suit your catalog (vector
//     search over descriptions in another language, domain words) on a provider that loads.
//   - NativeFallback for a client whose model is chosen at run time: native search where the
//     provider has it, the advisor's elsewhere. Each turn's first request then tries native
//     search; a refusal costs no network round trip.
package toolsearch
