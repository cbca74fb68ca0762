package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

// remoteTool is one tool of an MCP server as a [tool.Tool].
type remoteTool struct {
	client *Client
	name   string // the server's name for the tool
	def    tool.Definition
	meta   tool.Metadata
}

// newRemoteTool makes t, a tool of c's server, a tool.Tool named name.
func newRemoteTool(c *Client, t *sdk.Tool, name string) (*remoteTool, error) {
	input, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	var output json.RawMessage
	if t.OutputSchema != nil {
		if output, err = json.Marshal(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: output schema: %w", t.Name, err)
		}
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	var meta tool.Metadata
	if a := t.Annotations; a != nil {
		// The server's hints travel with the tool, so an approval policy can ask before a
		// destructive call and let a read-only one through.
		meta.ReadOnly, meta.Destructive, meta.Idempotent, meta.OpenWorld = a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint
	}
	return &remoteTool{
		client: c,
		name:   t.Name,
		meta:   meta,
		def: tool.Definition{
			Name:         name,
			Description:  desc,
			InputSchema:  input,
			OutputSchema: output,
		},
		// No Metadata.Timeout: the client's own timeout restarts with each progress report,
		// which a fixed timeout around the call would defeat.
	}, nil
}

// size is about what the tool's definition holds in memory.
func (t *remoteTool) size() int {
	return len(t.name) + len(t.def.Name) + len(t.def.Description) + len(t.def.InputSchema) + len(t.def.OutputSchema)
}

func (t *remoteTool) Definition() tool.Definition { return t.def }
func (t *remoteTool) Metadata() tool.Metadata     { return t.meta }

// Call calls the tool on its server. A result the server marks as an error comes back as a
// [*ToolError] holding the server's message, so the model sees what went wrong.
func (t *remoteTool) Call(ctx context.Context, args string) (string, error) {
	res, err := t.CallMCP(ctx, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", &ToolError{Server: t.client.cfg.Name, Tool: t.name, Message: ResultText(res)}
	}
	return ResultText(res), nil
}

// CallParts calls the tool on its server and keeps its images, audio and binary resources as
// parts (see [ResultParts]); an error result is a [*ToolError], as for Call.
func (t *remoteTool) CallParts(ctx context.Context, args string) (tool.Result, error) {
	res, err := t.CallMCP(ctx, args)
	if err != nil {
		return tool.Result{}, err
	}
	if res.IsError {
		return tool.Result{}, &ToolError{Server: t.client.cfg.Name, Tool: t.name, Message: ResultText(res)}
	}
	return ResultParts(res), nil
}

// CallMCP calls the tool and returns the server's result as it came. A wield MCP server serving
// this tool (a proxy) passes the result on whole, images and all, instead of Call's text.
func (t *remoteTool) CallMCP(ctx context.Context, args string) (*sdk.CallToolResult, error) {
	raw, err := objectArgs(args)
	if err != nil {
		return nil, err
	}
	return t.client.callTool(ctx, t.name, raw)
}

// ResultTool is a [tool.Tool] that can also answer with a whole MCP result: content beyond text
// (images, audio, embedded resources), structuredContent, or an isError result of its own.
// [AddTools] serves it through CallMCP instead of Call. The tools of a [Client] are ResultTools,
// so a server proxying them passes their servers' results on unchanged.
type ResultTool interface {
	tool.Tool
	CallMCP(ctx context.Context, args string) (*sdk.CallToolResult, error)
}

// NewResultTool returns a [ResultTool] defined by def that runs fn. Called as a plain tool (in a
// local tool loop), its result is rendered with [ResultText], and an isError result becomes a
// [*ToolError]. def.InputSchema may be empty for a tool without arguments.
func NewResultTool(def tool.Definition, fn func(ctx context.Context, args string) (*sdk.CallToolResult, error)) ResultTool {
	if len(def.InputSchema) == 0 {
		def.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return &resultTool{def: def, fn: fn}
}

type resultTool struct {
	def tool.Definition
	fn  func(ctx context.Context, args string) (*sdk.CallToolResult, error)
}

func (t *resultTool) Definition() tool.Definition { return t.def }
func (t *resultTool) Metadata() tool.Metadata     { return tool.Metadata{} }

func (t *resultTool) CallMCP(ctx context.Context, args string) (*sdk.CallToolResult, error) {
	return t.fn(ctx, args)
}

func (t *resultTool) CallParts(ctx context.Context, args string) (tool.Result, error) {
	res, err := t.fn(ctx, args)
	if err != nil {
		return tool.Result{}, err
	}
	if res.IsError {
		return tool.Result{}, &ToolError{Tool: t.def.Name, Message: ResultText(res)}
	}
	return ResultParts(res), nil
}

func (t *resultTool) Call(ctx context.Context, args string) (string, error) {
	res, err := t.fn(ctx, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", &ToolError{Tool: t.def.Name, Message: ResultText(res)}
	}
	return ResultText(res), nil
}

// objectArgs checks that args is a JSON object (empty means none) and returns it raw, so the
// server receives the model's arguments byte for byte.
func objectArgs(args string) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid([]byte(trimmed)) {
		return nil, fmt.Errorf("arguments are not valid JSON: %q", truncate(trimmed, 200))
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("arguments must be a JSON object, got %q", truncate(trimmed, 200))
	}
	return json.RawMessage(trimmed), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ToolError is a tool result an MCP server marked as an error (isError). Its text is the server's
// message, which is what the model reads.
type ToolError struct {
	Server  string // the server's name
	Tool    string // the server's name for the tool
	Message string // the result's content as text
}

func (e *ToolError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("tool %q of MCP server %q failed without a message", e.Tool, e.Server)
	}
	return e.Message
}

// ResultText renders a tool result as the text a model reads: each content block on its own
// line, text as is; an image or audio clip as "[image: image/png, 1024 bytes]"; a resource link
// as "[resource link: name <uri> (mime)]" followed by its description; an embedded text resource
// as "[resource: <uri> (mime)]" and its text on the next line; an embedded binary resource as
// "[resource: <uri> (mime), N bytes]". structuredContent is used, as compact JSON, only when
// there is no content: when a server sends both, its content is the form meant for reading (the
// MCP specification has servers repeat structured results as text), and a text tool's
// structuredContent would reach the model as escaped JSON.
//
// Models cannot read binary data as text, so it is described rather than sent; the tool loop
// uses [ResultParts] instead, which keeps images and audio as parts.
func ResultText(res *sdk.CallToolResult) string {
	if res == nil {
		return ""
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if raw, ok := res.StructuredContent.(json.RawMessage); ok { // a result made in this process
			return string(raw)
		}
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	return strings.Join(parts, "\n")
}

// ResultParts converts a tool result into what a model reads, keeping media: images and audio
// become image and audio parts, an embedded binary resource a part of the kind its MIME type
// says (a PDF a document), in the server's order; text, resource links and embedded text
// resources become text as [ResultText] renders them. Media that is malformed (no or a wrong
// MIME type, no data) or over [content.DefaultMaxFileBytes] is described in text instead, so a
// server's bad block cannot fail the model request that would carry it.
func ResultParts(res *sdk.CallToolResult) tool.Result {
	if res == nil {
		return tool.Result{}
	}
	var parts []content.Part
	media := false
	for _, c := range res.Content {
		p, ok := mediaPart(c)
		if !ok {
			p = content.Text(contentText(c))
		} else {
			media = true
		}
		if len(parts) > 0 {
			if p.IsText() && parts[len(parts)-1].IsText() {
				parts[len(parts)-1].Text += "\n" + p.Text
				continue
			}
		}
		parts = append(parts, p)
	}
	if !media {
		return tool.Result{Text: ResultText(res)}
	}
	out := tool.Result{Parts: parts}
	if parts[0].IsText() {
		out.Text, out.Parts = parts[0].Text, parts[1:]
	}
	return out
}

// mediaPart returns c as a media part when it is one a model can be sent.
func mediaPart(c sdk.Content) (content.Part, bool) {
	var p content.Part
	switch c := c.(type) {
	case *sdk.ImageContent:
		p = content.Image(c.Data, c.MIMEType)
	case *sdk.AudioContent:
		p = content.Audio(c.Data, c.MIMEType)
	case *sdk.EmbeddedResource:
		if c.Resource == nil || c.Resource.Blob == nil {
			return p, false
		}
		p = content.Media(c.Resource.Blob, c.Resource.MIMEType, resourceName(c.Resource.URI))
	default:
		return p, false
	}
	if p.Validate() != nil || len(p.Data) > content.DefaultMaxFileBytes {
		return p, false
	}
	return p, true
}

// resourceName is the last segment of a resource URI, a document's name for the model.
func resourceName(uri string) string {
	if i := strings.LastIndexAny(uri, "/:"); i >= 0 {
		return uri[i+1:]
	}
	return uri
}

func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		var b strings.Builder
		b.WriteString("[resource link: ")
		if c.Name != "" {
			b.WriteString(c.Name)
			b.WriteString(" ")
		}
		b.WriteString("<" + c.URI + ">")
		if c.MIMEType != "" {
			b.WriteString(" (" + c.MIMEType + ")")
		}
		b.WriteString("]")
		if c.Description != "" {
			b.WriteString(" ")
			b.WriteString(c.Description)
		}
		return b.String()
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource]"
		}
		mime := ""
		if r.MIMEType != "" {
			mime = " (" + r.MIMEType + ")"
		}
		if r.Blob != nil {
			return fmt.Sprintf("[resource: <%s>%s, %d bytes]", r.URI, mime, len(r.Blob))
		}
		return fmt.Sprintf("[resource: <%s>%s]\n%s", r.URI, mime, r.Text)
	default:
		if b, err := json.Marshal(c); err == nil {
			return string(b)
		}
		return fmt.Sprintf("[%T]", c)
	}
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// Toolset is a [tool.Provider] over the tools of several MCP servers. Tool names must be unique
// across servers: a name two servers offer is a [*CollisionError] naming both, and the cure is a
// [ServerConfig.Prefix] on one of them. Wield does not rename on collision by itself, because a
// name that changes when some server adds a tool would silently break prompts and
// tool-name options that use it.
type Toolset struct {
	clients []*Client
	failed  []*StartError
}

// Tools returns a provider over the tools of clients, in client order. Closing it closes them.
func Tools(clients ...*Client) *Toolset {
	return &Toolset{clients: clients}
}

// Clients returns the clients of the set.
func (s *Toolset) Clients() []*Client { return s.clients }

// Failed returns the servers that [ConnectAll] could not start, in configuration order; they are not
// part of the set.
func (s *Toolset) Failed() []*StartError { return s.failed }

// Tools lists the tools of every server, concurrently. A server that cannot be reached fails the
// listing, naming the server: a model silently missing tools is harder to debug.
func (s *Toolset) Tools(ctx context.Context) ([]tool.Tool, error) {
	lists := make([][]tool.Tool, len(s.clients))
	errs := make([]error, len(s.clients))
	var wg sync.WaitGroup
	for i, c := range s.clients {
		wg.Go(func() { lists[i], errs[i] = c.Tools(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var all []tool.Tool
	owner := map[string]string{}
	for i, list := range lists {
		for _, t := range list {
			name := t.Definition().Name
			if first, dup := owner[name]; dup {
				return nil, &CollisionError{Tool: name, Servers: [2]string{first, s.clients[i].Name()}}
			}
			owner[name] = s.clients[i].Name()
			all = append(all, t)
		}
	}
	return all, nil
}

// Close closes every client of the set, concurrently: a stdio server that ignores the end of its
// input is given a grace period before it is stopped, and those should not add up.
func (s *Toolset) Close() error {
	errs := make([]error, len(s.clients))
	var wg sync.WaitGroup
	for i, c := range s.clients {
		wg.Go(func() { errs[i] = c.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// CollisionError reports a tool name offered by two servers of a [Toolset].
type CollisionError struct {
	Tool    string
	Servers [2]string
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("mcp: tool %q is offered by both server %q and server %q; set a Prefix on one of them",
		e.Tool, e.Servers[0], e.Servers[1])
}
