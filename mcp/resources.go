package mcp

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/wield-ai/wield/content"
)

// ErrResourceTooLarge matches the error of a resource read whose answer is over the transport's
// message limit ([DefaultMaxMessageBytes] over stdio, [MaxResponseBytes] over HTTP) or holds a
// binary part over [content.DefaultMaxFileBytes]. The transport skips an oversized answer as it
// reads it, so a resource of any size costs no more memory than the limit.
var ErrResourceTooLarge = errors.New("mcp: resource too large")

// maxListed bounds the entries of one resource, template or prompt listing.
const maxListed = 100_000

// request runs one request other than a tool call on the server's session, with the server's
// timeout, reconnecting once when the session was lost before it reached the server.
func request[T any](ctx context.Context, c *Client, what string, fn func(context.Context, *sdk.ClientSession) (T, error)) (T, error) {
	parent := ctx
	if d := c.cfg.timeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errNoAnswer)
		defer cancel()
	}
	res, err := onSession(ctx, c, what, func(s *sdk.ClientSession) (T, error) { return fn(ctx, s) })
	if err != nil {
		return res, c.failed(parent, ctx, what, err)
	}
	return res, nil
}

// onSession runs fn on the server's session, connecting first if the connection was lost. fn runs
// again only when the server reports that it no longer knows the session (it restarted), as the
// request did not run then; one cut off in flight is never repeated. fn's error is wrapped with
// what; one of connecting is returned as it is.
func onSession[T any](ctx context.Context, c *Client, what string, fn func(*sdk.ClientSession) (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		s, err := c.Session(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		res, err := fn(s)
		if err == nil {
			return res, nil
		}
		if !isProtocolError(err) && ctx.Err() == nil {
			c.drop(s)
			if attempt == 0 && errors.Is(err, sdk.ErrSessionMissing) {
				continue
			}
		}
		return res, c.errorf("%s: %w", what, err)
	}
}

// failed returns the error of a request (what) that failed with err: a timeout error when ctx
// (derived from parent) was cancelled because the server said nothing for the configured time or
// a call ran past its MaxCallTime, which does not wrap a context error (the caller's own context
// is fine, only this request ran out of time); err itself when the caller's context ended or the
// server answered with an error; otherwise err marked as the server being unavailable.
func (c *Client) failed(parent, ctx context.Context, what string, err error) error {
	switch {
	case parent.Err() == nil && errors.Is(context.Cause(ctx), errNoAnswer):
		return c.errorf("%s timed out: no answer for %v (the server's timeout)", what, c.cfg.timeout())
	case parent.Err() == nil && errors.Is(context.Cause(ctx), errCallTooLong):
		return c.errorf("%s timed out: still running after %v (the server's MaxCallTime)", what, c.cfg.maxCallTime())
	case ctx.Err() != nil || answered(err):
		return err
	}
	return &unavailableError{err}
}

// listAll gathers a paginated listing within maxListed entries.
func listAll[T any](seq iter.Seq2[T, error], what string) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		if len(out) == maxListed {
			return nil, fmt.Errorf("%w: more than %d %s", errEndless, maxListed, what)
		}
		out = append(out, v)
	}
	return out, nil
}

// Resources lists the server's resources, all pages (at most 100,000 entries).
func (c *Client) Resources(ctx context.Context) ([]*sdk.Resource, error) {
	return request(ctx, c, "listing resources", func(ctx context.Context, s *sdk.ClientSession) ([]*sdk.Resource, error) {
		return listAll(s.Resources(ctx, nil), "resources")
	})
}

// ResourceTemplates lists the server's resource templates (URI templates, RFC 6570), all pages.
// [Client.ReadTemplate] reads the resource a template names for given arguments.
func (c *Client) ResourceTemplates(ctx context.Context) ([]*sdk.ResourceTemplate, error) {
	return request(ctx, c, "listing resource templates", func(ctx context.Context, s *sdk.ClientSession) ([]*sdk.ResourceTemplate, error) {
		return listAll(s.ResourceTemplates(ctx, nil), "resource templates")
	})
}

// ReadResourceResult reads the resource at uri as the server sends it. An answer over the
// transport's limit fails with an error matching [ErrResourceTooLarge].
func (c *Client) ReadResourceResult(ctx context.Context, uri string) (*sdk.ReadResourceResult, error) {
	what := "reading resource " + quoteName(uri)
	res, err := request(ctx, c, what, func(ctx context.Context, s *sdk.ClientSession) (*sdk.ReadResourceResult, error) {
		return s.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	})
	if err != nil && tooLarge(err) {
		return nil, fmt.Errorf("%w: %w", ErrResourceTooLarge, err)
	}
	return res, err
}

// tooLarge reports whether err is the transports' refusal of an oversized message.
func tooLarge(err error) bool {
	return errors.Is(err, errResponseTooLarge) || strings.Contains(err.Error(), "over the limit of")
}

// ReadResource reads the resource at uri as content parts a [chat.Message] can carry: text
// contents as text parts, binary contents as the part their MIME type says (an image, audio, or
// a document such as a PDF), in the server's order. Binary contents whose MIME type no part
// takes are an error, as is any over [content.DefaultMaxFileBytes] (matching
// [ErrResourceTooLarge]).
func (c *Client) ReadResource(ctx context.Context, uri string) ([]content.Part, error) {
	res, err := c.ReadResourceResult(ctx, uri)
	if err != nil {
		return nil, err
	}
	return ResourceParts(res)
}

// ReadTemplate fills the URI template with args (RFC 6570 expansion; a missing argument expands
// to nothing) and reads the resource it names, as [Client.ReadResource] does.
func (c *Client) ReadTemplate(ctx context.Context, uriTemplate string, args map[string]string) ([]content.Part, error) {
	uri, err := ExpandTemplate(uriTemplate, args)
	if err != nil {
		return nil, err
	}
	return c.ReadResource(ctx, uri)
}

// ExpandTemplate fills an RFC 6570 URI template with args.
func ExpandTemplate(uriTemplate string, args map[string]string) (string, error) {
	t, err := uritemplate.New(uriTemplate)
	if err != nil {
		return "", fmt.Errorf("mcp: resource template %s: %w", quoteName(uriTemplate), err)
	}
	vals := uritemplate.Values{}
	for k, v := range args {
		vals.Set(k, uritemplate.String(v))
	}
	for name := range args {
		if !slices.Contains(t.Varnames(), name) {
			return "", fmt.Errorf("mcp: resource template %s has no argument %s", quoteName(uriTemplate), quoteName(name))
		}
	}
	uri, err := t.Expand(vals)
	if err != nil {
		return "", fmt.Errorf("mcp: resource template %s: %w", quoteName(uriTemplate), err)
	}
	return uri, nil
}

// ResourceParts converts a resources/read answer into content parts, as [Client.ReadResource]
// describes.
func ResourceParts(res *sdk.ReadResourceResult) ([]content.Part, error) {
	if res == nil {
		return nil, nil
	}
	var parts []content.Part
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		if rc.Blob == nil {
			parts = append(parts, content.Text(rc.Text))
			continue
		}
		if len(rc.Blob) > content.DefaultMaxFileBytes {
			return nil, fmt.Errorf("%w: %s holds %s of data, over the limit of %s", ErrResourceTooLarge,
				quoteName(rc.URI), content.FormatSize(len(rc.Blob)), content.FormatSize(content.DefaultMaxFileBytes))
		}
		mt := rc.MIMEType
		if mt == "" {
			mt = content.Detect(rc.Blob)
		}
		p := content.Media(rc.Blob, mt, resourceName(rc.URI))
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("mcp: resource %s: %w", quoteName(rc.URI), err)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// Resource is a resource a [Server] serves from Go values: fixed text or bytes, or contents
// produced on each read.
type Resource struct {
	URI         string
	Name        string // required
	Title       string
	Description string
	MIMEType    string
	// Exactly one of Text, Data and Read gives the contents. Read is called on every read, with
	// the URI asked for; its parts become the answer's contents (text parts as text, media as
	// binary with their media type).
	Text string
	Data []byte
	Read func(ctx context.Context, uri string) ([]content.Part, error)
}

// ResourceTemplate is a family of resources a [Server] serves, named by an RFC 6570 URI template;
// Read gets the URI a client asked for, which matches the template.
type ResourceTemplate struct {
	URITemplate string
	Name        string // required
	Title       string
	Description string
	MIMEType    string
	Read        func(ctx context.Context, uri string) ([]content.Part, error)
}

// AddResources serves resources; a resource with the URI of one already served replaces it.
func (s *Server) AddResources(rs ...Resource) error {
	for _, r := range rs {
		set := 0
		for _, b := range []bool{r.Text != "", r.Data != nil, r.Read != nil} {
			if b {
				set++
			}
		}
		switch {
		case r.URI == "" || r.Name == "":
			return fmt.Errorf("mcp: resource %q: a URI and a name are required", r.URI)
		case set != 1:
			return fmt.Errorf("mcp: resource %q: exactly one of Text, Data and Read must be set", r.URI)
		}
		read := r.Read
		switch {
		case r.Data != nil:
			data, mt := r.Data, r.MIMEType
			if mt == "" {
				mt = content.Detect(data)
			}
			read = func(context.Context, string) ([]content.Part, error) {
				return []content.Part{{Kind: content.KindDocument, Data: data, MediaType: mt}}, nil
			}
		case read == nil:
			text := r.Text
			read = func(context.Context, string) ([]content.Part, error) { return []content.Part{content.Text(text)}, nil }
		}
		s.sdk.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: resourceSize(r)},
			s.resourceHandler(r.MIMEType, read))
	}
	return nil
}

func resourceSize(r Resource) int64 {
	switch {
	case r.Data != nil:
		return int64(len(r.Data))
	case r.Text != "":
		return int64(len(r.Text))
	}
	return 0
}

// AddResourceTemplates serves resource templates.
func (s *Server) AddResourceTemplates(ts ...ResourceTemplate) error {
	for _, t := range ts {
		if t.URITemplate == "" || t.Name == "" || t.Read == nil {
			return fmt.Errorf("mcp: resource template %q: a URI template, a name and Read are required", t.URITemplate)
		}
		if _, err := uritemplate.New(t.URITemplate); err != nil {
			return fmt.Errorf("mcp: resource template %q: %w", t.URITemplate, err)
		}
		s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType},
			s.resourceHandler(t.MIMEType, t.Read))
	}
	return nil
}

// resourceHandler answers a read with read's parts. A failure of read reaches the client as a
// neutral message (details in the log), as a tool's internal failure does, unless it is the
// SDK's not-found error.
func (s *Server) resourceHandler(mimeType string, read func(context.Context, string) ([]content.Part, error)) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (res *sdk.ReadResourceResult, err error) {
		uri := req.Params.URI
		defer func() {
			if r := recover(); r != nil {
				s.logger.Error("mcp: resource read panicked", "uri", uri, "panic", fmt.Sprint(r))
				res, err = nil, fmt.Errorf("reading resource %s failed", quoteName(uri))
			}
		}()
		start := time.Now()
		parts, err := read(ctx, uri)
		if err != nil {
			// A JSON-RPC error (sdk.ResourceNotFoundError) is meant for the client.
			if _, ok := errors.AsType[*jsonrpc.Error](err); ok {
				return nil, err
			}
			s.logger.Error("mcp: resource read failed", "uri", uri, "error", err, "took", time.Since(start))
			return nil, fmt.Errorf("reading resource %s failed", quoteName(uri))
		}
		out := &sdk.ReadResourceResult{}
		for _, p := range parts {
			rc := &sdk.ResourceContents{URI: uri, MIMEType: mimeType}
			if p.IsText() {
				rc.Text = p.Text
				if rc.MIMEType == "" {
					rc.MIMEType = "text/plain"
				}
			} else {
				rc.Blob, rc.MIMEType = p.Data, p.MediaType
			}
			out.Contents = append(out.Contents, rc)
		}
		return out, nil
	}
}
