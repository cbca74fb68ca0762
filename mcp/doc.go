// Package mcp connects wield to the Model Context Protocol both ways, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk, imported here as sdkmcp in examples).
//
// # Tools from MCP servers
//
// A [Client] is a connection to one server, described by a [ServerConfig]: a command run over
// stdio, a streamable HTTP URL, or a legacy SSE URL. It is a [tool.Provider]: its Tools method
// returns the server's tools as [tool.Tool] values, with their input schemas exactly as the server
// sent them. [Tools] combines several clients into a [Toolset]; [LoadConfig] reads the
// configuration file Claude Desktop, Claude Code, Cursor and VS Code use.
//
// # Construction
//
// The package has one constructor per side, each taking the options of its side:
//
//   - [Connect] connects to one server, and [ConnectAll] to several at once (a [Toolset] going on
//     without the servers that fail, each reported with the end of its standard error); both take
//     [ConnectOption] values: [Deferred] (connect on first use), [RequireAll] (all or nothing),
//     [OnStatus] (follow each server as it starts).
//   - [Start] builds a served one from a [ServerOptions] value and the tools to serve.
//
// [NewClient], [NewServer] and [Open] remain as deprecated wrappers of these.
//
//	cfgs, err := mcp.LoadConfig("mcp.json")
//	...
//	set, err := mcp.ConnectAll(ctx, cfgs)
//	...
//	defer set.Close()
//	tools, err := set.Tools(ctx) // for chat.Options.Tools
//
// Results reach the model as parts ([ResultParts]): images, audio and binary embedded resources
// (a PDF) as media parts the provider sends natively where its API allows, everything else as
// text in the form [ResultText] documents, structuredContent only when there is no content.
// Media a server sends malformed or over [content.DefaultMaxFileBytes] is described in text
// instead. A plain Call, for text-only callers, gets [ResultText]. A result the server marks isError comes back
// from Call as a [*ToolError] carrying the server's message, which the tool-calling runtime
// reports to the model so it can correct itself. A server that dies mid-call fails that call with
// an error; the next use reconnects (for stdio, by starting the command again). A request that
// hears nothing from its server for [ServerConfig.Timeout] (one minute by default; progress
// notifications count) fails, so a hung server cannot hang a turn. A server's announcement that
// its tools changed (notifications/tools/list_changed) makes the next Tools call fetch them
// afresh. Progress the server reports reaches the caller's [tool.WithProgress] receiver.
//
// Per server, [ServerConfig] sets a name prefix, include and exclude patterns, and the timeout;
// the configuration file has keys for them. Tool names outside the MCP naming rules are made
// valid, with a warning ([ValidToolName]). Names that two servers of a [Toolset] share are an
// error naming both servers ([*CollisionError]); a prefix on one of them resolves it.
//
// # Resources and prompts
//
// [Client.Resources] and [Client.ResourceTemplates] list a server's resources; [Client.ReadResource]
// reads one as content parts a chat message carries (text, images, audio, documents such as a
// PDF), and [Client.ReadTemplate] fills a template's arguments first. A resource is bounded by the
// transport's message limit ([DefaultMaxMessageBytes] over stdio, [MaxResponseBytes] over HTTP),
// skipped as it is read, so a resource of a gigabyte fails with [ErrResourceTooLarge] without being
// held. [Client.Subscribe] follows a resource's updates on a channel that holds at most one
// waiting update and closes when the subscription or the client ends, or the server's connection
// ends for good: an HTTP server's subscriptions are taken again on the client's new session after a
// reconnect (with an update, for what changed unseen), within about 15 seconds. A
// [Server] serves [Resource] and [ResourceTemplate] values: fixed text or bytes, or contents made
// on each read.
//
// [Client.Prompts] lists a server's prompts and [Client.GetPrompt] gets one with its arguments as
// chat messages that can start a conversation; a [Server] serves [Prompt] values, fixed messages
// or messages made from the arguments. A prompt holds at most [MaxPromptMessages] messages.
//
// With [ServerConfig.InterruptOnElicitation], a server's elicitation request during a tool call
// stops the turn as a tool's interrupt does ([Elicitation] in the interrupt's data); the answer
// ([ElicitationAnswer]) reaches the server when the call is made again on resume.
//
// # Serving wield tools
//
// [Start] returns a [Server] that puts any [tool.Tool] on an MCP server: typed tools with
// their inferred input schemas, output schemas for typed results (sent as structuredContent),
// parts as MCP content (images and audio as such, documents as embedded resources),
// tool failures and invalid arguments as isError results whose text a [tool.ErrorProcessor] decides.
// A panicking tool, like any internal failure, gives the client a neutral message; the details go
// to the server's log only. Cancellation by the client cancels the tool's context; progress a tool
// reports with [tool.ReportProgress] becomes notifications/progress. The tools of a [Client] can
// be served too, which makes a proxy: their servers' results (images included) pass through
// whole. [Elicit] and [Sample] let a served tool ask its client for input from its user or for a
// model's answer (the call runs again with the answer), with [ErrUnsupported] when the client
// declared neither; [RequestFrom] gives a served tool the MCP request it answers. A client that
// takes elicitation is asked, too, for what a tool loop would ask its application: a tool that
// needs approval ([tool.Metadata.RequiresApproval]) runs only once the client's user accepts, and
// a tool's interrupt ([toolcall.InterruptError]) becomes a question whose answer the tool is run
// again with ([toolcall.Resumed]: the text, or a proxied server's whole [ElicitationAnswer]); a
// declined question is the call's result, saying so. A client of protocol 2026-07-28 is asked by
// result, the call's state sealed with the server's key so that it cannot be forged; an older one
// is asked directly. A client without elicitation gets the tool run unasked, and an interrupt as
// the call's error.
//
// Over stdio, [Server.Run] with a [StdioTransport] serves one session and survives frames the
// SDK's own transport would end it on. Over streamable HTTP, [Server.Serve] and [Server.Handler]
// serve every session from one server, built once, with the protections [HTTPOptions] describe:
// Origin validation, bearer-token authentication, idle-session expiry, a session cap, a body cap,
// and read and write timeouts; Serve refuses an address other than loopback without
// authentication.
package mcp
