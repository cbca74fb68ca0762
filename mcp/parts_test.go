package mcp_test

import (
	"bytes"
	"context"
	"image"
	_ "image/png"
	"reflect"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// server-everything's image tool, called by a model through the tool loop: the image reaches the
// next model request as an image part, not as a description.
func TestEverythingImageReachesTheModel(t *testing.T) {
	cfg := nodeServer(t, "everything", "mcp-server-everything", "stdio")
	cfg.Options = everythingOptions()
	c := mcptest.Connect(t, cfg)
	ctx := testContext(t)
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img := toolByName(t, tools, "get-tiny-image")
	m := chattest.New(chattest.Calls(chattest.Call("get-tiny-image", `{}`)), chattest.Text("A tiny image."))
	cl, err := client.New(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Prompt("Show me the tiny image.").Tools(img).Call(ctx).Content(); err != nil {
		t.Fatal(err)
	}
	res := m.Prompt(1).Messages[len(m.Prompt(1).Messages)-1].ToolResults[0]
	var found bool
	for p := range res.AllParts() {
		if p.Kind != content.KindImage {
			continue
		}
		found = true
		if p.MediaType != "image/png" {
			t.Errorf("media type %q", p.MediaType)
		}
		if cfg, format, err := image.DecodeConfig(bytes.NewReader(p.Data)); err != nil || format != "png" || cfg.Width == 0 {
			t.Errorf("image does not decode: %v %q %+v", err, format, cfg)
		}
	}
	if !found {
		t.Fatalf("no image part in the tool result: %+v", res)
	}
}

// A wield tool returning an image and a PDF is served as image content and an embedded
// resource; a wield client reading that server gets the same parts back.
func TestServePartsRoundTrip(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	pdf := []byte("%PDF-1.4\n%\xe2\xe3")
	want := tool.Result{Text: "the report:", Parts: []content.Part{
		content.Image(png, "image/png"),
		content.Document(pdf, "application/pdf", "report.pdf"),
		content.Audio([]byte("RIFF1234WAVE"), "audio/wav"),
	}}
	report := tool.Must(tool.Func("report", "Makes the report.", func(context.Context, struct{}) (tool.Result, error) { return want, nil }))
	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			s := mustServer(t, report)
			cfg := mcptest.Reach(t, transport, "parts", s)
			c := mcptest.Connect(t, cfg)
			res := mcptest.CallRaw(t, c, "report", `{}`)
			if res.IsError || len(res.Content) != 4 {
				t.Fatalf("result: %+v", res)
			}
			if im, ok := res.Content[1].(*sdk.ImageContent); !ok || im.MIMEType != "image/png" || !bytes.Equal(im.Data, png) {
				t.Errorf("image content: %#v", res.Content[1])
			}
			if er, ok := res.Content[2].(*sdk.EmbeddedResource); !ok || er.Resource.MIMEType != "application/pdf" || !bytes.Equal(er.Resource.Blob, pdf) {
				t.Errorf("document content: %#v", res.Content[2])
			}
			tools, err := c.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tool.Invoke(testContext(t), toolByName(t, tools, "report"), `{}`)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parts through MCP:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// Media a server sends malformed (no MIME type, a type of another kind, no data) or too large is
// described in text rather than failing the model request that would carry it.
func TestResultPartsHostileServer(t *testing.T) {
	big := make([]byte, content.DefaultMaxFileBytes+1)
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "results:"},
		&sdk.ImageContent{Data: []byte{1, 2}},
		&sdk.ImageContent{Data: []byte{1, 2}, MIMEType: "text/html"},
		&sdk.AudioContent{MIMEType: "audio/wav"},
		&sdk.ImageContent{Data: big, MIMEType: "image/png"},
		&sdk.ImageContent{Data: []byte{9}, MIMEType: "image/gif"},
	}}
	got := mcp.ResultParts(res)
	if len(got.Parts) != 1 || got.Parts[0].MediaType != "image/gif" {
		t.Fatalf("parts = %+v", got.Parts)
	}
	for _, want := range []string{"results:", "[image: unknown type, 2 bytes]", "[image: text/html, 2 bytes]", "[audio: audio/wav, 0 bytes]", "[image: image/png, 20971521 bytes]"} {
		if !bytes.Contains([]byte(got.Text), []byte(want)) {
			t.Errorf("text %q lacks %q", got.Text, want)
		}
	}
	// Text-only results stay plain text.
	if r := mcp.ResultParts(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}); r.Text != "a\nb" || r.Parts != nil {
		t.Errorf("text result = %+v", r)
	}
}
