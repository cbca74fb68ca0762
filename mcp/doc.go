// Package mcp connects wield to the Model Context Protocol both ways, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk, imported here as sdkmcp in examples).
//
// # Tools from MCP servers
//
// A [Client] is a connection to one server, described by a [ServerConfig]: a command run over
// stdio, a streamable HTTP URL, or a legacy SSE URL. It is a [tool.Provider]: its Tools method
// returns the server's tools as [tool.Tool] values, with their input schemas exactly as the server
// sent them. [Tools] combines several clients into a [Toolset], and [Open] builds one from the
// configuration file Claude Desktop, Claude Code, Cursor and VS Code use.
//
//	set, err := mcp.Open(ctx, "mcp.json")
//	...
//	defer set.Close()
//	tools, err := set.Tools(ctx) // for chat.Options.Tools
//
// Results reach the model as text: text content as is, structuredContent as JSON, other content
// in the form [ResultText] documents. A result the server marks isError comes back from Call as a
// [*ToolError] carrying the server's message, which the tool-calling runtime reports to the model
// so it can correct itself. A server that dies mid-call fails that call with an error; the next
// use reconnects (for stdio, by starting the command again). A server's announcement that its
// tools changed (notifications/tools/list_changed) makes the next Tools call fetch them afresh.
//
// Per server, [ServerConfig] sets a name prefix, include and exclude patterns, and a per-call
// timeout. Names that two servers of a [Toolset] share are an error naming both servers
// ([*CollisionError]); a prefix on one of them resolves it.
//
// # Serving wield tools
//
// [NewServer] and [AddTools] put any [tool.Tool] on an MCP server: typed tools with their
// inferred input schemas, output schemas for typed results (sent as structuredContent), tool
// failures and invalid arguments as isError results. Cancellation by the client cancels the tool's
// context; progress a tool reports with [tool.ReportProgress] becomes notifications/progress. The
// tools of a [Client] can be served too, which makes a proxy: their servers' results (images
// included) pass through whole. [RequestFrom] gives a served tool the MCP request it answers, for
// logging to the client, sampling or elicitation.
//
// The server is the SDK's, so it is served like any other: server.Run with a
// sdkmcp.StdioTransport for stdio, sdkmcp.NewStreamableHTTPHandler for HTTP.
package mcp
