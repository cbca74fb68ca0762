package gemini

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
)

// nameAPI fakes generateContent and streamGenerateContent for the tool-name loops, refusing
// function names as the API does ("Must start with a letter or an underscore. Must be a-z, A-Z,
// 0-9, or contain underscores, dots and dashes, with a maximum length of 64").
var nameAPI = providertest.NameAPI{
	Rule: regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$`),
	Parse: providertest.DecodeNames(func(r *http.Request, req *struct {
		Contents []struct {
			Parts []struct {
				FunctionCall *struct {
					ID, Name string
				} `json:"functionCall"`
				FunctionResponse *struct {
					ID, Name string
					Response map[string]any
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []providertest.NameTool `json:"functionDeclarations"`
		} `json:"tools"`
	}) providertest.NameRequest {
		out := providertest.NameRequest{Stream: strings.Contains(r.URL.Path, ":streamGenerateContent")}
		for _, t := range req.Tools {
			out.Tools = append(out.Tools, t.FunctionDeclarations...)
		}
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if fc := p.FunctionCall; fc != nil {
					out.Calls = append(out.Calls, providertest.NameCall{ID: fc.ID, Name: fc.Name})
				}
				if fr := p.FunctionResponse; fr != nil {
					out.Results = append(out.Results, providertest.NameCall{ID: fr.ID, Name: fr.Name, Content: fmt.Sprint(fr.Response["result"])})
				}
			}
		}
		return out
	}),
	Call: func(w http.ResponseWriter, stream bool, id, wire, args string) {
		write(w, stream, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":%q,"name":%q,"args":%s}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"m","responseId":"r1"}`, id, wire, args))
	},
	Final: func(w http.ResponseWriter, stream bool, text string) {
		write(w, stream, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%q}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":5,"totalTokenCount":25},"modelVersion":"m","responseId":"r2"}`, text))
	},
}

// write answers with one response, as JSON or as one server-sent event.
func write(w http.ResponseWriter, stream bool, body string) {
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", body)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body)
}

// TestToolNames runs dotted, long, unicode and colliding tool names through whole tool loops:
// the API receives names its rule accepts, in declarations, calls and responses alike, and the
// model's calls come back under the tools' own names.
func TestToolNames(t *testing.T) {
	providertest.ToolNameLoop(t, nameAPI, func(t testing.TB, url string) chat.Model {
		m, err := New(context.Background(), Config{BaseURL: url, APIKey: "test-key", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}
