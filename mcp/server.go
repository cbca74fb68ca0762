package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
// An input schema that is not a JSON object schema is an error, and nothing is added.
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
	inSchema, err := objectSchema(input)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: tool %q: input schema: %w", def.Name, err)
	}
	st := &sdk.Tool{Name: def.Name, Description: def.Description, InputSchema: input}
	h := &handler{tool: t, name: def.Name, timeout: t.Metadata().Timeout, input: resolve(inSchema)}
	if len(def.OutputSchema) > 0 {
		var out jsonschema.Schema
		if err := json.Unmarshal(def.OutputSchema, &out); err != nil {
			return nil, nil, fmt.Errorf("mcp: tool %q: output schema: %w", def.Name, err)
		}
		if out.Type == "object" {
			st.OutputSchema = def.OutputSchema
			h.structured = true
			h.output = resolve(&out)
		}
	}
	return st, h.handle, nil
}

// objectSchema parses a tool's input schema, which MCP requires to describe an object.
func objectSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`type must be "object", got %q`, s.Type)
	}
	return &s, nil
}

// resolve prepares s for validation. A schema the validator cannot resolve (one referring to
// remote documents, say) is served without server-side validation: the tool still checks its input.
func resolve(s *jsonschema.Schema) *jsonschema.Resolved {
	r, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return r
}

type handler struct {
	tool       tool.Tool
	name       string
	timeout    time.Duration
	input      *jsonschema.Resolved // nil: no validation
	structured bool                 // results are sent as structuredContent
	output     *jsonschema.Resolved
}

func (h *handler) handle(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if err := h.validate(args); err != nil {
		return errorResult(fmt.Errorf("invalid arguments: %w", err)), nil
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
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			return errorResult(fmt.Errorf("tool %q declares an output schema but returned output that is not JSON: %w", h.name, err)), nil
		}
		if h.output != nil {
			if err := h.output.Validate(v); err != nil {
				return errorResult(fmt.Errorf("tool %q returned output that does not match its output schema: %w", h.name, err)), nil
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

func (h *handler) validate(args json.RawMessage) error {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return errors.New("not a JSON object")
	}
	if h.input == nil {
		return nil
	}
	return h.input.Validate(v)
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
