package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/tool"
)

// NewServer returns an MCP server offering tools. Serve it over stdio with
// server.Run(ctx, &sdkmcp.StdioTransport{}), or over streamable HTTP with
// sdkmcp.NewStreamableHTTPHandler. impl names the server to clients (nil: wield and its module
// version); opts may be nil. See [AddTools] for how tools are served.
func NewServer(impl *sdk.Implementation, opts *sdk.ServerOptions, tools ...tool.Tool) (*sdk.Server, error) {
	if impl == nil {
		impl = &sdk.Implementation{Name: "wield", Version: moduleVersion()}
	}
	s := sdk.NewServer(impl, opts)
	if err := AddTools(s, tools...); err != nil {
		return nil, err
	}
	return s, nil
}

// AddTools adds tools to an MCP server, replacing tools of the same names; connected clients are
// told the list changed. Tools proxied from other MCP servers (from a [Client]) can be added like
// any other and pass their servers' results on whole.
//
// For each tool:
//   - the input schema is advertised exactly as the tool defines it, and the arguments of each call
//     are validated against it before the tool runs; invalid arguments, like a failing tool, give an
//     isError result whose text is the error, so the model can correct itself;
//   - an output schema of type object is advertised, and the tool's result, which must then be a
//     JSON value matching it, is sent as structuredContent as well as text. An output schema of
//     another type is not advertised (clients before protocol version 2026-07-28 accept only
//     objects) and the result is sent as text;
//   - the call's context is cancelled when the client cancels the request, carries the tool call
//     ([tool.CallFrom]), and, when the client asked for progress, carries a receiver
//     ([tool.ReportProgress]) that sends notifications/progress;
//   - Metadata.Timeout bounds each call; a panic in the tool becomes an isError result.
//
// An input schema that is not a JSON object schema, or a schema that does not compile, is an
// error, and nothing is added. A [ResultTool]'s schemas are only checked for their type: a
// proxied tool's server checks its own arguments, whatever its schema uses.
func AddTools(s *sdk.Server, tools ...tool.Tool) error {
	type entry struct {
		def     *sdk.Tool
		handler sdk.ToolHandler
	}
	entries := make([]entry, 0, len(tools))
	seen := map[string]bool{}
	for _, t := range tools {
		def := t.Definition()
		if seen[def.Name] {
			return fmt.Errorf("mcp: duplicate tool name %q", def.Name)
		}
		seen[def.Name] = true
		st, h, err := serverTool(t, def)
		if err != nil {
			return err
		}
		entries = append(entries, entry{st, h})
	}
	for _, e := range entries {
		s.AddTool(e.def, e.handler)
	}
	return nil
}

func serverTool(t tool.Tool, def tool.Definition) (*sdk.Tool, sdk.ToolHandler, error) {
	if def.Name == "" {
		return nil, nil, errors.New("mcp: tool without a name")
	}
	input := def.InputSchema
	if len(input) == 0 {
		input = json.RawMessage(`{"type":"object"}`)
	}
	if typ, err := schemaType(input); err != nil || typ != "object" {
		if err == nil {
			err = fmt.Errorf(`type must be "object", got %s`, typ)
		}
		return nil, nil, fmt.Errorf("mcp: tool %q: input schema: %w", def.Name, err)
	}
	_, passThrough := t.(ResultTool)
	h := &handler{tool: t, name: def.Name, timeout: t.Metadata().Timeout}
	var err error
	if h.input, err = schema.ForServing(t, input); err != nil && !passThrough {
		return nil, nil, fmt.Errorf("mcp: tool %q: input schema: %w", def.Name, err)
	}
	// A ResultTool (a proxied tool above all) may carry a schema wield cannot compile, one with
	// remote references say; it is served as it is, and its own server checks the arguments.
	st := &sdk.Tool{Name: def.Name, Description: def.Description, InputSchema: input}
	if len(def.OutputSchema) > 0 {
		typ, err := schemaType(def.OutputSchema)
		if err != nil {
			return nil, nil, fmt.Errorf("mcp: tool %q: output schema: %w", def.Name, err)
		}
		if typ == "object" {
			st.OutputSchema = def.OutputSchema
			h.structured = true
			if h.output, err = schema.Compile(def.OutputSchema); err != nil && !passThrough {
				return nil, nil, fmt.Errorf("mcp: tool %q: output schema: %w", def.Name, err)
			}
		}
	}
	return st, h.handle, nil
}

// schemaType returns the "type" keyword of a schema (a JSON string, or the JSON text of a list).
func schemaType(schema json.RawMessage) (string, error) {
	var s struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return "", err
	}
	var typ string
	if json.Unmarshal(s.Type, &typ) == nil {
		return typ, nil
	}
	if len(s.Type) == 0 {
		return "none", nil
	}
	return string(s.Type), nil
}

type handler struct {
	tool       tool.Tool
	name       string
	timeout    time.Duration
	input      *schema.Validator // nil: no validation
	structured bool              // results are sent as structuredContent
	output     *schema.Validator
}

func (h *handler) handle(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if h.input != nil {
		if err := h.input.Validate(args); err != nil {
			return errorResult(err), nil
		}
	}

	ctx = tool.WithCall(ctx, tool.Call{Name: h.name})
	ctx = context.WithValue(ctx, requestKey{}, req)
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		session := req.Session
		ctx = tool.WithProgress(ctx, func(p tool.Progress) {
			// Best effort: a client that went away cannot be told.
			_ = session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
			})
		})
	}
	if h.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.timeout)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = errorResult(fmt.Errorf("tool %q panicked: %v\n%s", h.name, r, debug.Stack())), nil
		}
	}()

	if rt, ok := h.tool.(ResultTool); ok {
		res, err := rt.CallMCP(ctx, string(args))
		if err != nil {
			return h.failure(ctx, err)
		}
		if res == nil {
			return errorResult(fmt.Errorf("tool %q returned no result", h.name)), nil
		}
		return res, nil
	}
	out, err := h.tool.Call(ctx, string(args))
	if err != nil {
		return h.failure(ctx, err)
	}
	res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out}}}
	if h.structured {
		if !json.Valid([]byte(out)) {
			return errorResult(fmt.Errorf("tool %q declares an output schema but returned output that is not JSON (does a result converter change it?): %q", h.name, truncate(out, 200))), nil
		}
		if h.output != nil {
			if err := h.output.Validate([]byte(out)); err != nil {
				return errorResult(fmt.Errorf("tool %q returned output that does not match its output schema: %s", h.name, issues(err))), nil
			}
		}
		res.StructuredContent = json.RawMessage(out)
	}
	return res, nil
}

type requestKey struct{}

// RequestFrom returns the MCP request a served tool is answering, or nil outside [AddTools]'
// handlers. Its Session lets a tool log to the client, ask it to sample or elicit, or list its
// roots; its Params carry the request's _meta.
func RequestFrom(ctx context.Context) *sdk.CallToolRequest {
	req, _ := ctx.Value(requestKey{}).(*sdk.CallToolRequest)
	return req
}

// issues lists what a validation error found, without the wording meant for arguments.
func issues(err error) string {
	var ae *tool.ArgumentError
	if !errors.As(err, &ae) || len(ae.Issues) == 0 {
		return err.Error()
	}
	parts := make([]string, len(ae.Issues))
	for i, is := range ae.Issues {
		path := is.Path
		if path == "" {
			path = "/"
		}
		parts[i] = path + ": " + is.Message
	}
	return strings.Join(parts, "; ")
}

// failure turns a tool's error into an isError result; a call the client cancelled gets no result
// at all, so the error goes back to the SDK, which sends nothing for cancelled requests.
func (h *handler) failure(ctx context.Context, err error) (*sdk.CallToolResult, error) {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, err
	}
	return errorResult(err), nil
}

func errorResult(err error) *sdk.CallToolResult {
	res := &sdk.CallToolResult{}
	res.SetError(err)
	return res
}
