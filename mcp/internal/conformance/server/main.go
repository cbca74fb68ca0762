// Command server is an MCP server built on wield for the official MCP conformance suite
// (@modelcontextprotocol/conformance, "conformance server"). Its tools are wield tools (tool.Func
// with inferred schemas, tool.New, mcp.NewResultTool for media content) served by mcp.Start, over stdio on mcp.StdioTransport and over HTTP on Server.Handler; the prompts, resources and completions the suite also checks are the MCP
// SDK's own features, registered on the same server.
//
// Usage:
//
//	server            serve over stdio
//	server -http ADDR serve streamable HTTP at http://ADDR/mcp; the address actually listened on
//	                  is written to stderr as "WIELD_LISTENING host:port" (use port 0 for any)
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

// A 1x1 red PNG and a silent WAV, the suite's sample media.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at this address instead of stdio")
	flag.Parse()
	log.SetFlags(0)

	server, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "WIELD_LISTENING %s\n", ln.Addr())
	log.Fatal(server.Serve(context.Background(), ln, nil))
}

func newServer() (*mcp.Server, error) {
	server, err := mcp.Start(mcp.ServerOptions{Implementation: &sdk.Implementation{Name: "wield-conformance-server", Version: "1.0.0"}, Options: &sdk.ServerOptions{
		CompletionHandler: func(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
			return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}, nil
		},
		SubscribeHandler:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	}}, tools()...)
	if err != nil {
		return nil, err
	}
	addResources(server.SDK())
	addPrompts(server.SDK())
	return server, nil
}

// content returns a tool answering with fixed MCP content.
func content(name, desc string, c ...sdk.Content) tool.Tool {
	return mcp.NewResultTool(tool.Definition{Name: name, Description: desc}, func(context.Context, string) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: c}, nil
	})
}

const (
	schema2020    = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`
	sleepBetween  = 50 * time.Millisecond
	mixedResource = `{"test":"data","value":123}`
)

type none struct{}

type samplingIn struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the LLM"`
}

type elicitationIn struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

func tools() []tool.Tool {
	png, _ := base64.StdEncoding.DecodeString(pngBase64)
	wav, _ := base64.StdEncoding.DecodeString(wavBase64)
	text := func(s string) func(context.Context, none) (string, error) {
		return func(context.Context, none) (string, error) { return s, nil }
	}
	return []tool.Tool{
		tool.Must(tool.Func("test_simple_text", "Returns simple text", text("This is a simple text response for testing."))),
		content("test_image_content", "Returns an image", &sdk.ImageContent{Data: png, MIMEType: "image/png"}),
		content("test_audio_content", "Returns audio", &sdk.AudioContent{Data: wav, MIMEType: "audio/wav"}),
		content("test_embedded_resource", "Returns an embedded resource", &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
		}}),
		content("test_multiple_content_types", "Returns text, an image and a resource",
			&sdk.TextContent{Text: "Multiple content types test:"},
			&sdk.ImageContent{Data: png, MIMEType: "image/png"},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: mixedResource}},
		),
		tool.Must(tool.Func("test_tool_with_logging", "Logs three messages while it runs", func(ctx context.Context, _ none) (string, error) {
			session := mcp.RequestFrom(ctx).Session
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					time.Sleep(sleepBetween)
				}
				if err := session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
					return "", err
				}
			}
			return "Tool with logging executed successfully", nil
		})),
		tool.Must(tool.Func("test_tool_with_progress", "Reports progress while it runs", func(ctx context.Context, _ none) (string, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					time.Sleep(sleepBetween)
				}
				tool.ReportProgress(ctx, tool.Progress{Progress: p, Total: 100, Message: fmt.Sprintf("%.0f%% done", p)})
			}
			return fmt.Sprintf("Progress tool completed (token %v)", mcp.RequestFrom(ctx).Params.GetProgressToken()), nil
		})),
		tool.Must(tool.Func("test_error_handling", "Always fails", func(context.Context, none) (string, error) {
			return "", errors.New("This tool intentionally returns an error for testing")
		})),
		tool.Must(tool.Func("test_sampling", "Asks the client's model", func(ctx context.Context, in samplingIn) (string, error) {
			res, err := mcp.RequestFrom(ctx).Session.CreateMessage(ctx, &sdk.CreateMessageParams{
				Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: in.Prompt}}},
				MaxTokens: 100,
			})
			if err != nil {
				return "", fmt.Errorf("sampling failed: %w", err)
			}
			text := "(non-text response)"
			if tc, ok := res.Content.(*sdk.TextContent); ok {
				text = tc.Text
			}
			return "LLM response: " + text, nil
		})),
		tool.Must(tool.Func("test_elicitation", "Asks the user", func(ctx context.Context, in elicitationIn) (string, error) {
			return elicit(ctx, in.Message, &jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"username": {Type: "string", Description: "User's response"},
					"email":    {Type: "string", Description: "User's email address"},
				},
				Required: []string{"username", "email"},
			}, "User response")
		})),
		tool.Must(tool.Func("test_elicitation_sep1034_defaults", "Asks the user, with defaults", func(ctx context.Context, _ none) (string, error) {
			return elicit(ctx, "Test defaults for primitives", json.RawMessage(`{"type":"object","properties":{
				"name":{"type":"string","description":"User name","default":"John Doe"},
				"age":{"type":"integer","description":"User age","default":30},
				"score":{"type":"number","description":"User score","default":95.5},
				"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
				"verified":{"type":"boolean","description":"Verification status","default":true}}}`), "Elicitation completed")
		})),
		tool.Must(tool.Func("test_elicitation_sep1330_enums", "Asks the user to choose", func(ctx context.Context, _ none) (string, error) {
			return elicit(ctx, "Test enum schemas", json.RawMessage(`{"type":"object","properties":{
				"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
				"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
				"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
				"untitledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
				"titledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`), "Elicitation completed")
		})),
		// A schema given as is (SEP-1613): tool.New serves it untouched and validates against it.
		tool.Must(tool.New(tool.Definition{
			Name:        "json_schema_2020_12_tool",
			Description: "Tool with JSON Schema 2020-12 features",
			InputSchema: json.RawMessage(schema2020),
		}, func(_ context.Context, args map[string]any) (any, error) {
			b, _ := json.Marshal(args)
			return "JSON Schema 2020-12 tool called with: " + string(b), nil
		})),
		tool.Must(tool.Func("test_reconnection", "Closes its event stream so the client reconnects", func(ctx context.Context, _ none) (string, error) {
			if extra := mcp.RequestFrom(ctx).Extra; extra != nil && extra.CloseSSEStream != nil {
				extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
			}
			time.Sleep(100 * time.Millisecond)
			return "Reconnection test completed successfully.", nil
		})),
	}
}

func elicit(ctx context.Context, message string, schema any, label string) (string, error) {
	res, err := mcp.RequestFrom(ctx).Session.Elicit(ctx, &sdk.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return "", fmt.Errorf("elicitation failed: %w", err)
	}
	content, _ := json.Marshal(res.Content)
	return fmt.Sprintf("%s: action=%s, content=%s", label, res.Action, content), nil
}

func addResources(server *sdk.Server) {
	png, _ := base64.StdEncoding.DecodeString(pngBase64)
	contents := func(c *sdk.ResourceContents) sdk.ResourceHandler {
		return func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			rc := *c
			rc.URI = req.Params.URI
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{&rc}}, nil
		}
	}
	server.AddResource(&sdk.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"},
		contents(&sdk.ResourceContents{MIMEType: "text/plain", Text: "This is the content of the static text resource."}))
	server.AddResource(&sdk.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (an image)", MIMEType: "image/png"},
		contents(&sdk.ResourceContents{MIMEType: "image/png", Blob: png}))
	server.AddResource(&sdk.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource clients can subscribe to", MIMEType: "text/plain"},
		contents(&sdk.ResourceContents{MIMEType: "text/plain", Text: "Watched resource content"}))
	server.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: "A resource template with parameter substitution", MIMEType: "application/json"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			text, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(text)}}}, nil
		})
}

func addPrompts(server *sdk.Server) {
	png, _ := base64.StdEncoding.DecodeString(pngBase64)
	user := func(c sdk.Content) *sdk.PromptMessage { return &sdk.PromptMessage{Role: "user", Content: c} }
	server.AddPrompt(&sdk.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments"},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{user(&sdk.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})
	server.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with required arguments", Arguments: []*sdk.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		a := req.Params.Arguments
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			user(&sdk.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}),
		}}, nil
	})
	server.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource", Arguments: []*sdk.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			user(&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
			user(&sdk.TextContent{Text: "Please process the embedded resource above."}),
		}}, nil
	})
	server.AddPrompt(&sdk.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				user(&sdk.ImageContent{Data: png, MIMEType: "image/png"}),
				user(&sdk.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
}
