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
// Three indexes come with the package:
//   - [KeywordIndex]: BM25F over tool names, descriptions and parameter docs, with identifier
//     splitting and English stemming; fast, offline, the default;
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
package toolsearch
