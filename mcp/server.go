package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/redact"
	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/tool"
)

// ServerOptions configure a [Server] that [Start] builds. The zero value is ready to use.
type ServerOptions struct {
	// Implementation names the server to clients; nil means wield and its module version.
	Implementation *sdk.Implementation
	// Options are passed to the Go SDK's server, for what lies beyond tools: instructions,
	// completions, resource subscriptions, keepalive. Its Logger, when nil, is Logger from the
	// warning level up.
	Options *sdk.ServerOptions
	// Logger receives what the server has to report: the panic value and stack of a panicking
	// tool and other internal failures (at error level), the cause behind an error message sent to
	// a client, refused frames and requests (at warning level). Nil means [slog.Default].
	Logger *slog.Logger
	// ErrorProcessor decides the text a client reads for a failed call. Nil means
	// [DefaultErrorProcessor]. The tool loop's Manager takes the same interface, so the two can
	// share one.
	ErrorProcessor tool.ErrorProcessor
	// MaxConcurrentCalls caps the tool calls the server runs at once, over all its sessions: a
	// call beyond it is refused at once with an error result saying the server is busy (through
	// the ErrorProcessor), so that a client flooding the server cannot make it hold a goroutine,
	// the arguments and the tool's resources for each call it sends. Zero means
	// DefaultMaxConcurrentCalls; negative means no cap.
	MaxConcurrentCalls int
}

// DefaultMaxConcurrentCalls is the default of [ServerOptions.MaxConcurrentCalls].
const DefaultMaxConcurrentCalls = 64

// ErrBusy is the error of a call refused because the server runs [ServerOptions.MaxConcurrentCalls]
// calls already; its text, which the client reads, asks to try again.
var ErrBusy = errors.New("the server is busy: too many calls are running at once; try again when one has finished")

// ErrorProcessor is [tool.ErrorProcessor]. In a server it decides what a failed call of a served
// tool becomes: the text of the isError result the client reads, or an error, which fails the request with a JSON-RPC error whose
// message is neutral (the error itself is logged, never sent).
//
// It sees the tool's own errors, arguments that fail validation (*[tool.ArgumentError]), calls that
// ran out of their [tool.Metadata.Timeout] ([tool.ErrTimeout]), and internal failures, which match
// [ErrInternal]: a panicking tool (errors.As finds its *[tool.PanicError]), a tool returning output
// that breaks its own output schema, a proxied tool whose server cannot be reached. Their text is
// neutral; the details are in the error chain and the server's log. It is called from several
// goroutines at once and must not panic.
//
// Deprecated: use [tool.ErrorProcessor], the same interface, which a tool loop's Manager takes too.
type ErrorProcessor = tool.ErrorProcessor

// ErrorProcessorFunc is [tool.ErrorProcessorFunc].
//
// Deprecated: use [tool.ErrorProcessorFunc].
type ErrorProcessorFunc = tool.ErrorProcessorFunc

// ErrInternal matches, with errors.Is, the failures of a served call that are the server's
// business, not the client's: a panic, output that does not match the tool's output schema, a
// result-returning tool with no result, a proxied tool whose own server cannot be reached.
// [DefaultErrorProcessor] sends a neutral message for them.
var ErrInternal = errors.New("internal failure")

// internalFailure is a served call's internal failure; the client reads only its Error text,
// which names neither the cause's details nor where it happened.
type internalFailure struct {
	what  string // a short, neutral description
	cause error  // the details, for the log
	stack []byte // a panic's stack
}

func (e *internalFailure) Error() string        { return e.what }
func (e *internalFailure) Unwrap() error        { return e.cause }
func (e *internalFailure) Is(target error) bool { return target == ErrInternal }

// neutralMessage is what a client reads about an internal failure.
const neutralMessage = "The tool failed because of an internal error; the server logged the details."

// DefaultErrorProcessor sends the client the tool's own error text (which should tell the model
// what to fix), and a neutral message for internal failures ([ErrInternal]), whose details go to
// the server's log only. It never fails the request.
func DefaultErrorProcessor() tool.ErrorProcessor { return tool.ErrorProcessorFunc(defaultProcess) }

func defaultProcess(_ context.Context, err *tool.ExecutionError) (string, error) {
	if err.Err == nil {
		return "The tool failed without saying why.", nil
	}
	if errors.Is(err.Err, ErrInternal) {
		return neutralMessage, nil
	}
	if msg := strings.TrimSpace(err.Err.Error()); msg != "" {
		return msg, nil
	}
	return "The tool failed without saying why.", nil
}

// Server is an MCP server offering wield tools, on the Go SDK's server. Serve it with [Server.Run]
// (over stdio with a [StdioTransport]), or over streamable HTTP with [Server.Serve] or
// [Server.Handler]. It is safe for concurrent use.
type Server struct {
	sdk       *sdk.Server
	logger    *slog.Logger
	processor tool.ErrorProcessor
	calls     chan struct{} // a place per call running; nil: no cap
	stateKey  []byte        // seals the state of calls that stopped to ask their client
}

// Start returns an MCP server offering tools, configured by opts (the zero value is ready to
// use); serve it with [Server.Run], [Server.Serve] or [Server.Handler]. See [Server.AddTools] for
// how tools are served.
func Start(opts ServerOptions, tools ...tool.Tool) (*Server, error) {
	o := opts
	impl := o.Implementation
	if impl == nil {
		impl = &sdk.Implementation{Name: "wield", Version: moduleVersion()}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ErrorProcessor == nil {
		o.ErrorProcessor = DefaultErrorProcessor()
	}
	var so sdk.ServerOptions
	if o.Options != nil {
		so = *o.Options
	}
	if so.Logger == nil {
		so.Logger = sdkLogger(o.Logger)
	}
	s := &Server{sdk: sdk.NewServer(impl, &so), logger: o.Logger, processor: o.ErrorProcessor, stateKey: newStateKey()}
	switch {
	case o.MaxConcurrentCalls == 0:
		s.calls = make(chan struct{}, DefaultMaxConcurrentCalls)
	case o.MaxConcurrentCalls > 0:
		s.calls = make(chan struct{}, o.MaxConcurrentCalls)
	}
	if err := s.AddTools(tools...); err != nil {
		return nil, err
	}
	return s, nil
}

// NewServer returns an MCP server offering tools; impl names it to clients (nil: wield).
//
// Deprecated: use [Start], with impl as [ServerOptions.Implementation].
func NewServer(impl *sdk.Implementation, opts *ServerOptions, tools ...tool.Tool) (*Server, error) {
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	if impl != nil {
		o.Implementation = impl
	}
	return Start(o, tools...)
}

// SDK returns the Go SDK's server underneath, for its features beyond tools (prompts, resources)
// and its own transports.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Run serves one session over t until the client disconnects or ctx ends; see
// [sdk.Server.Run]. Over stdio, use a [StdioTransport], which survives bad input.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error { return s.sdk.Run(ctx, t) }

// RemoveTools removes the named tools; connected clients are told the list changed.
func (s *Server) RemoveTools(names ...string) { s.sdk.RemoveTools(names...) }

// AddTools adds tools to the server, replacing tools of the same names; connected clients are
// told the list changed. Tools proxied from other MCP servers (from a [Client]) can be added like
// any other and pass their servers' results on whole.
//
// For each tool:
//   - the name must follow the MCP naming rules ([ValidToolName]);
//   - the input schema is advertised exactly as the tool defines it, and the arguments of each call
//     are validated against it before the tool runs; invalid arguments, like a failing tool, give an
//     isError result whose text the server's [ErrorProcessor] decides, so the model can correct
//     itself;
//   - the result's text is sent as a text block, and its parts ([tool.Result], from a
//     [tool.PartsTool]) follow as content blocks: text, images and audio inline, documents as
//     embedded resources, media given by URL as resource links;
//   - an output schema of type object is advertised, and the tool's result, which must then be a
//     JSON value matching it, is sent as structuredContent as well as text. An output schema of
//     another type is not advertised (clients before protocol version 2026-07-28 accept only
//     objects) and the result is sent as text;
//   - the call's context is cancelled when the client cancels the request, carries the tool call
//     ([tool.CallFrom]), and, when the client asked for progress, carries a receiver
//     ([tool.ReportProgress]) that sends notifications/progress;
//   - each call runs in [tool.Invoke], the envelope every runtime uses: Metadata.Timeout bounds
//     it, a tool still running when its call is cancelled or times out is given up on (left to
//     finish alone, its result dropped), and a panic becomes an isError result with a neutral
//     message, the panic's value and stack going to the server's log only.
//
// A name outside the rules, an input schema that is not a JSON object schema, or a schema that
// does not compile, is an error, and nothing is added. A [ResultTool]'s schemas are only checked
// for their type: a proxied tool's server checks its own arguments, whatever its schema uses.
func (s *Server) AddTools(tools ...tool.Tool) error {
	type entry struct {
		def     *sdk.Tool
		handler sdk.ToolHandler
	}
	entries := make([]entry, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		def := t.Definition()
		if seen[def.Name] {
			return fmt.Errorf("mcp: duplicate tool name %s", quoteName(def.Name))
		}
		seen[def.Name] = true
		st, h, err := s.serverTool(t, def)
		if err != nil {
			return err
		}
		entries = append(entries, entry{st, h})
	}
	for _, e := range entries {
		s.sdk.AddTool(e.def, e.handler)
	}
	return nil
}

func (s *Server) serverTool(t tool.Tool, def tool.Definition) (*sdk.Tool, sdk.ToolHandler, error) {
	if def.Name == "" {
		return nil, nil, errors.New("mcp: tool without a name")
	}
	if !ValidToolName(def.Name) {
		return nil, nil, fmt.Errorf("mcp: tool name %s is outside the MCP naming rules (1 to %d characters, each a letter, a digit, '_', '-' or '.')",
			quoteName(def.Name), MaxToolNameLength)
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
	h := &handler{srv: s, tool: t, name: def.Name}
	var err error
	if h.input, err = schema.ForServing(t, input); err != nil && !passThrough {
		return nil, nil, fmt.Errorf("mcp: tool %q: input schema: %w", def.Name, err)
	}
	// A ResultTool (a proxied tool above all) may carry a schema wield cannot compile, one with
	// remote references say; it is served as it is, and its own server checks the arguments.
	st := &sdk.Tool{Name: def.Name, Description: def.Description, InputSchema: input}
	if m := t.Metadata(); m.ReadOnly || m.Destructive != nil || m.Idempotent || m.OpenWorld != nil {
		st.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: m.ReadOnly, DestructiveHint: m.Destructive, IdempotentHint: m.Idempotent, OpenWorldHint: m.OpenWorld}
	}
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
	srv        *Server
	tool       tool.Tool
	name       string
	input      *schema.Validator // nil: no validation
	structured bool              // results are sent as structuredContent
	output     *schema.Validator
}

// handle answers a call. The SDK does not recover panics, so a panic outside the tool's own
// envelope (in validation, the error processor, building the result) would end the whole server:
// it is logged with its stack and the request fails with a neutral protocol error.
func (h *handler) handle(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			h.srv.logger.ErrorContext(ctx, "mcp: a served call panicked outside its tool", "tool", h.name,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "tool call failed"}
		}
	}()
	if h.srv.calls != nil {
		select {
		case h.srv.calls <- struct{}{}:
			defer func() { <-h.srv.calls }()
		default:
			h.srv.logger.WarnContext(ctx, "mcp: refused a call: too many calls running", "tool", h.name, "max", cap(h.srv.calls))
			return h.fail(ctx, ErrBusy)
		}
	}
	return h.serve(ctx, req)
}

func (h *handler) serve(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if h.input != nil {
		if err := h.input.Validate(args); err != nil {
			return h.fail(ctx, err)
		}
	}

	ctx = tool.WithCall(ctx, tool.Call{Name: h.name})
	ctx = context.WithValue(ctx, requestKey{}, req)
	ctx = context.WithValue(ctx, askKey{}, &askState{})
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		session := req.Session
		ctx = tool.WithProgress(ctx, func(p tool.Progress) {
			// Best effort: a client that went away cannot be told.
			_ = session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
			})
		})
	}
	if !canElicitForm(req) {
		res, err := h.run(ctx, args)
		if err != nil {
			return h.fail(ctx, err)
		}
		return res, nil
	}
	return h.serveAsking(ctx, req, args)
}

// run runs the tool in the one envelope every runtime uses: Metadata.Timeout, panics as
// *tool.PanicError, and a tool that ignores its context given up on when the call ends.
func (h *handler) run(ctx context.Context, args json.RawMessage) (*sdk.CallToolResult, error) {
	var res *sdk.CallToolResult
	var err error
	if rt, ok := h.tool.(ResultTool); ok {
		c := &resultCall{ResultTool: rt}
		if _, err = tool.Invoke(ctx, c, string(args)); err == nil {
			res = c.res
			if res == nil {
				err = &internalFailure{what: "the tool returned no result", cause: errors.New("CallMCP returned a nil result and no error")}
			}
		}
	} else {
		var out tool.Result
		if out, err = tool.Invoke(ctx, h.tool, string(args)); err == nil {
			res, err = h.result(out)
		}
	}
	return res, err
}

// resultCall runs a ResultTool's CallMCP as a tool.Tool's Call, for tool.Invoke, keeping the
// result. res is read only after Invoke returned without error, so after the call completed.
type resultCall struct {
	ResultTool
	res *sdk.CallToolResult
}

func (c *resultCall) Call(ctx context.Context, args string) (string, error) {
	res, err := c.CallMCP(ctx, args)
	c.res = res
	return "", err
}

// result makes the MCP result of a tool's output: its text, then its parts. The output schema
// applies to the text.
func (h *handler) result(r tool.Result) (*sdk.CallToolResult, error) {
	out := r.Text
	res := &sdk.CallToolResult{Content: resultContent(r)}
	if h.structured {
		// The causes, for the log, name where the output breaks the schema, never what it holds.
		if !json.Valid([]byte(out)) {
			return nil, &internalFailure{what: "the tool returned output that breaks its output schema",
				cause: fmt.Errorf("declares an output schema but returned %d bytes that are not JSON (does a result converter change it?)", len(out))}
		}
		if h.output != nil {
			if err := h.output.Validate([]byte(out)); err != nil {
				return nil, &internalFailure{what: "the tool returned output that breaks its output schema",
					cause: fmt.Errorf("output does not match the output schema: %s", issues(err))}
			}
		}
		res.StructuredContent = json.RawMessage(out)
	}
	return res, nil
}

// resultContent is the MCP content of a tool's result: the text (as a text block, even when
// empty and alone, so that every result has content), then a block per part: text, an image or
// audio clip inline, a document inline as an embedded resource (named by its file name, as
// clients show it), and media by URL as a resource link.
func resultContent(r tool.Result) []sdk.Content {
	out := make([]sdk.Content, 0, 1+len(r.Parts))
	if r.Text != "" || len(r.Parts) == 0 {
		out = append(out, &sdk.TextContent{Text: r.Text})
	}
	for i, p := range r.Parts {
		switch {
		case p.Kind == content.KindText:
			out = append(out, &sdk.TextContent{Text: p.Text})
		case p.URL != "":
			out = append(out, &sdk.ResourceLink{URI: p.URL, Name: cmp.Or(p.Name, path.Base(p.URL)), MIMEType: p.MediaType})
		case p.Kind == content.KindImage:
			out = append(out, &sdk.ImageContent{Data: p.Data, MIMEType: p.MediaType})
		case p.Kind == content.KindAudio:
			out = append(out, &sdk.AudioContent{Data: p.Data, MIMEType: p.MediaType})
		default:
			name := cmp.Or(p.Name, fmt.Sprintf("document-%d", i+1))
			out = append(out, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
				URI: "attachment:" + url.PathEscape(name), MIMEType: p.MediaType, Blob: p.Data}})
		}
	}
	return out
}

type requestKey struct{}

// RequestFrom returns the MCP request a served tool is answering, or nil outside a [Server]'s
// handlers. Its Session lets a tool log to the client, ask it to sample or elicit, or list its
// roots; its Params carry the request's _meta.
func RequestFrom(ctx context.Context) *sdk.CallToolRequest {
	req, _ := ctx.Value(requestKey{}).(*sdk.CallToolRequest)
	return req
}

// issues lists where a validation error found problems and the rules broken, without the values
// (which are the tool's output) and without the wording meant for arguments.
func issues(err error) string {
	var ae *tool.ArgumentError
	if !errors.As(err, &ae) || len(ae.Issues) == 0 {
		return redact.Error(err)
	}
	parts := make([]string, len(ae.Issues))
	for i, is := range ae.Issues {
		path, rule := is.Path, is.Keyword
		if path == "" {
			path = "/"
		}
		if rule == "" {
			rule = "invalid"
		}
		parts[i] = path + ": " + rule
	}
	return strings.Join(parts, "; ")
}

// fail turns a failed call into what the client receives: an isError result whose text the
// error processor decides, or, for a call the client cancelled, no result at all (the error goes
// back to the SDK, which sends nothing for cancelled requests). Internal failures are logged
// with their details.
func (h *handler) fail(ctx context.Context, err error) (*sdk.CallToolResult, error) {
	if ni := (*needInput)(nil); errors.As(err, &ni) && ctx.Err() == nil {
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{ni.id: ni.request}}, nil
	}
	if ctx.Err() != nil {
		// The request's context ends only when the client cancels it or goes away; the tool's
		// own timeout ends an inner context.
		return nil, ctx.Err()
	}
	if pe := (*tool.PanicError)(nil); errors.As(err, &pe) {
		err = &internalFailure{what: "the tool panicked", cause: pe, stack: pe.Stack}
	}
	if f := (*internalFailure)(nil); errors.As(err, &f) {
		var cause any = f.cause
		if pe := (*tool.PanicError)(nil); errors.As(f.cause, &pe) {
			// A program's panic value often quotes the tool's arguments, as its error text would:
			// the log names its type only. The runtime's own messages quote nothing.
			if re, ok := pe.Value.(runtime.Error); ok {
				cause = "the tool panicked: " + re.Error()
			} else {
				cause = fmt.Sprintf("the tool panicked with a value of type %T", pe.Value)
			}
		}
		attrs := []any{"tool", h.name, "failure", f.what, "cause", cause}
		if f.stack != nil {
			attrs = append(attrs, "stack", string(f.stack))
		}
		h.srv.logger.ErrorContext(ctx, "mcp: served tool failed", attrs...)
	} else if errors.Is(err, ErrInternal) {
		h.srv.logger.ErrorContext(ctx, "mcp: served tool failed", "tool", h.name, "cause", err)
	}
	text, perr := h.srv.processor.Process(ctx, &tool.ExecutionError{Tool: h.name, Err: err})
	if perr != nil {
		h.srv.logger.WarnContext(ctx, "mcp: error processor failed the request", "tool", h.name, "error", redact.Error(perr))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "tool call failed"}
	}
	res := &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
	return res, nil
}
