package mcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

func ExampleResultText() {
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "Here is the chart:"},
		&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
		&sdk.ResourceLink{Name: "data", URI: "file:///tmp/data.csv", MIMEType: "text/csv", Description: "the raw numbers"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///tmp/notes.txt", MIMEType: "text/plain", Text: "measured at noon"}},
	}}
	fmt.Println(mcp.ResultText(res))
	// Output:
	// Here is the chart:
	// [image: image/png, 2048 bytes]
	// [resource link: data <file:///tmp/data.csv> (text/csv)] the raw numbers
	// [resource: <file:///tmp/notes.txt> (text/plain)]
	// measured at noon
}

func ExampleNewResultTool() {
	chart := mcp.NewResultTool(tool.Definition{Name: "chart", Description: "Draw the sales chart"},
		func(context.Context, string) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "Sales by month:"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG...")},
			}}, nil
		})
	// Served with mcp.AddTools, clients receive the image itself; in a local tool loop the model
	// reads the text form.
	out, _ := chart.Call(context.Background(), `{}`)
	fmt.Println(out)
	// Output:
	// Sales by month:
	// [image: image/png, 7 bytes]
}

func ExampleTools() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := func(tools ...tool.Tool) string { // an MCP server over HTTP, for the example
		server, _ := mcp.Start(mcp.ServerOptions{}, tools...)
		handler, _ := server.Handler(nil)
		ts := httptest.NewServer(handler)
		go func() { <-ctx.Done(); ts.Close() }()
		return ts.URL
	}
	search := func(engine string) tool.Tool {
		return tool.Must(tool.Func("search", "Search "+engine, func(_ context.Context, in struct {
			Query string `json:"query"`
		}) (string, error) {
			return engine + " results for " + in.Query, nil
		}))
	}
	web, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "web", URL: serve(search("the web"))})
	if err != nil {
		fmt.Println(err)
		return
	}
	docs, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "docs", URL: serve(search("the docs"))})
	if err != nil {
		fmt.Println(err)
		return
	}
	set := mcp.Tools(web, docs)
	defer func() { set.Close() }()

	_, err = set.Tools(ctx)
	fmt.Println(err)

	docs.Close()
	docs, _ = mcp.Connect(ctx, mcp.ServerConfig{Name: "docs", URL: serve(search("the docs")), Prefix: "docs_"})
	set = mcp.Tools(web, docs)
	tools, _ := set.Tools(ctx)
	for _, t := range tools {
		out, _ := t.Call(ctx, `{"query":"mcp"}`)
		fmt.Printf("%s: %s\n", t.Definition().Name, out)
	}
	// Output:
	// mcp: tool "search" is offered by both server "web" and server "docs"; set a Prefix on one of them
	// search: the web results for mcp
	// docs_search: the docs results for mcp
}
