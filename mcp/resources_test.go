package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
)

// TestEverythingResources lists and reads the reference server's resources and templates: a text
// resource becomes a text part, a blob one a media part, both of which a message carries.
func TestEverythingResources(t *testing.T) {
	ctx := context.Background()
	c := mcptest.Connect(t, nodeServer(t, "everything", "mcp-server-everything", "stdio"))
	rs, err := c.Resources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		t.Fatal("no resources listed")
	}
	var textURI string
	for _, r := range rs {
		if strings.HasPrefix(r.URI, "demo://resource/static/document/") && textURI == "" {
			textURI = r.URI
		}
	}
	if textURI == "" {
		t.Fatalf("no static document among %d resources", len(rs))
	}
	parts, err := c.ReadResource(ctx, textURI)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || !parts[0].IsText() || parts[0].Text == "" {
		t.Fatalf("static document %s read as %v", textURI, parts)
	}

	ts, err := c.ResourceTemplates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var blobTemplate, textTemplate string
	for _, tm := range ts {
		switch {
		case strings.Contains(tm.URITemplate, "/blob/"):
			blobTemplate = tm.URITemplate
		case strings.Contains(tm.URITemplate, "/text/"):
			textTemplate = tm.URITemplate
		}
	}
	if blobTemplate == "" || textTemplate == "" {
		t.Fatalf("templates: %v", ts)
	}
	text, err := c.ReadTemplate(ctx, textTemplate, map[string]string{"resourceId": "7"})
	if err != nil {
		t.Fatal(err)
	}
	if len(text) != 1 || !strings.Contains(text[0].Text, "7") {
		t.Errorf("text template for 7: %v", text)
	}
	blob, err := c.ReadTemplate(ctx, blobTemplate, map[string]string{"resourceId": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(blob) != 1 || blob[0].IsText() || len(blob[0].Data) == 0 || blob[0].Validate() != nil {
		t.Errorf("blob template for 3: %v", blob)
	}
	msg := chat.Message{Role: chat.RoleUser, Content: "Summarise these.", Parts: append(parts, blob...)}
	if n := len(slices.Collect(msg.AllParts())); n != 3 {
		t.Errorf("message carries %d parts, want 3", n)
	}

	if _, err := c.ReadTemplate(ctx, textTemplate, map[string]string{"nope": "1"}); err == nil || !strings.Contains(err.Error(), `no argument "nope"`) {
		t.Errorf("unknown template argument: %v", err)
	}
	if _, err := c.ReadResource(ctx, "demo://resource/static/document/missing"); err == nil {
		t.Error("reading a missing resource succeeded")
	}
}

// TestHugeResource reads a 1 GiB resource: refused at the transport's limit with an error naming
// it, while the transport skips the rest, and the session goes on serving.
func TestHugeResource(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 GiB")
	}
	script, err := filepath.Abs("testdata/huge-resource.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cfg := nodeServer(t, "huge", "node", script)
	cfg.Timeout = 2 * time.Minute
	c := mcptest.Connect(t, cfg)
	ctx := context.Background()
	_, err = c.ReadResource(ctx, "demo://huge")
	if !errors.Is(err, mcp.ErrResourceTooLarge) || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("reading 1 GiB: %v", err)
	}
	rs, err := c.Resources(ctx)
	if err != nil || len(rs) != 1 {
		t.Fatalf("listing after the refusal: %v %v", rs, err)
	}
}

// TestServedResources serves resources from Go values (text, bytes, generated, a template) and
// reads them back through a wield client.
func TestServedResources(t *testing.T) {
	ctx := context.Background()
	pdf := []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde")
	s, err := mcp.Start(mcp.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.AddResources(
		mcp.Resource{URI: "file:///notes.txt", Name: "notes", Text: "buy milk"},
		mcp.Resource{URI: "file:///report.pdf", Name: "report", Data: pdf},
		mcp.Resource{URI: "gen://now", Name: "generated", Read: func(_ context.Context, uri string) ([]content.Part, error) {
			return []content.Part{content.Text("made for " + uri), content.Image(png, "image/png")}, nil
		}},
		mcp.Resource{URI: "gen://broken", Name: "broken", Read: func(context.Context, string) ([]content.Part, error) {
			return nil, errors.New("secret database password wrong")
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddResourceTemplates(mcp.ResourceTemplate{URITemplate: "users://{id}/profile", Name: "profile",
		Read: func(_ context.Context, uri string) ([]content.Part, error) {
			return []content.Part{content.Text("profile at " + uri)}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResources(mcp.Resource{URI: "x://", Name: "x", Text: "a", Data: []byte("b")}); err == nil {
		t.Error("a resource with two contents was accepted")
	}
	if err := s.AddResourceTemplates(mcp.ResourceTemplate{URITemplate: "x://{", Name: "x", Read: func(context.Context, string) ([]content.Part, error) { return nil, nil }}); err == nil {
		t.Error("an invalid URI template was accepted")
	}

	c := mcptest.Connect(t, inMemory("served", s))
	rs, err := c.Resources(ctx)
	if err != nil || len(rs) != 4 {
		t.Fatalf("listed %v, %v", rs, err)
	}
	if p, err := c.ReadResource(ctx, "file:///notes.txt"); err != nil || len(p) != 1 || p[0].Text != "buy milk" {
		t.Errorf("notes: %v %v", p, err)
	}
	if p, err := c.ReadResource(ctx, "file:///report.pdf"); err != nil || len(p) != 1 || p[0].Kind != content.KindDocument || !bytes.Equal(p[0].Data, pdf) || p[0].MediaType != "application/pdf" || p[0].Name != "report.pdf" {
		t.Errorf("report: %v %v", p, err)
	}
	if p, err := c.ReadResource(ctx, "gen://now"); err != nil || len(p) != 2 || p[0].Text != "made for gen://now" || p[1].Kind != content.KindImage {
		t.Errorf("generated: %v %v", p, err)
	}
	if _, err := c.ReadResource(ctx, "gen://broken"); err == nil || strings.Contains(err.Error(), "password") {
		t.Errorf("a failing read gave the client %v", err)
	}
	if _, err := c.ReadResource(ctx, "file:///absent"); err == nil {
		t.Error("reading an absent resource succeeded")
	}
	ts, err := c.ResourceTemplates(ctx)
	if err != nil || len(ts) != 1 {
		t.Fatalf("templates %v %v", ts, err)
	}
	if p, err := c.ReadTemplate(ctx, ts[0].URITemplate, map[string]string{"id": "42"}); err != nil || len(p) != 1 || p[0].Text != "profile at users://42/profile" {
		t.Errorf("template: %v %v", p, err)
	}
	if _, err := mcp.ResourceParts(&sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "x://big", MIMEType: "application/pdf", Blob: make([]byte, content.DefaultMaxFileBytes+1)}}}); !errors.Is(err, mcp.ErrResourceTooLarge) {
		t.Errorf("oversized blob: %v", err)
	}
}
