package mcp_test

import (
	"bytes"
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// A served tool's parts reach the client as MCP content blocks, in order after the text: images
// and audio inline, documents as embedded resources, media by URL as resource links.
func TestServeParts(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	pdf := []byte("%PDF-1.7 fake")
	chart := tool.Must(tool.Func("chart", "Draw a chart", func(context.Context, struct{}) (tool.Result, error) {
		return tool.Result{Text: "Here is the chart.", Parts: []content.Part{
			content.Image(png, "image/png"),
			content.Text("and the data:"),
			content.Document(pdf, "application/pdf", "data.pdf"),
			content.Audio([]byte("RIFFfake"), "audio/wav"),
			content.ImageURL("https://example.com/chart.png", "image/png"),
		}}, nil
	}))
	c := mcptest.Connect(t, inMemory("parts", mustServer(t, chart)))
	res := mcptest.CallRaw(t, c, "chart", `{}`)
	if res.IsError || len(res.Content) != 6 {
		t.Fatalf("result %+v", res)
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != "Here is the chart." {
		t.Errorf("block 0: %#v", res.Content[0])
	}
	if ic, ok := res.Content[1].(*sdk.ImageContent); !ok || !bytes.Equal(ic.Data, png) || ic.MIMEType != "image/png" {
		t.Errorf("block 1: %#v", res.Content[1])
	}
	if tc, ok := res.Content[2].(*sdk.TextContent); !ok || tc.Text != "and the data:" {
		t.Errorf("block 2: %#v", res.Content[2])
	}
	if er, ok := res.Content[3].(*sdk.EmbeddedResource); !ok || er.Resource == nil || !bytes.Equal(er.Resource.Blob, pdf) ||
		er.Resource.MIMEType != "application/pdf" || er.Resource.URI != "attachment:data.pdf" {
		t.Errorf("block 3: %#v", res.Content[3])
	}
	if ac, ok := res.Content[4].(*sdk.AudioContent); !ok || ac.MIMEType != "audio/wav" {
		t.Errorf("block 4: %#v", res.Content[4])
	}
	if rl, ok := res.Content[5].(*sdk.ResourceLink); !ok || rl.URI != "https://example.com/chart.png" || rl.Name != "chart.png" {
		t.Errorf("block 5: %#v", res.Content[5])
	}
	// A model behind a wield client reads the parts described.
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools[0].Call(testContext(t), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out)
}
