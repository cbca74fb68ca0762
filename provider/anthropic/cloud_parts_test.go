package anthropic

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// onBedrock serves a recorded first-party answer as Bedrock's InvokeModel does: a JSON answer as
// it is, a stream as event-stream frames, each carrying one Anthropic event in base64.
func onBedrock(t testing.TB, ex replay.Exchange) replay.Exchange {
	t.Helper()
	if !strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream") {
		return ex
	}
	var body bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, ev := range replay.SSEData(ex.Body) {
		payload, err := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(ev)})
		if err != nil {
			t.Fatal(err)
		}
		msg := eventstream.Message{Payload: payload}
		msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		if err := enc.Encode(&body, msg); err != nil {
			t.Fatal(err)
		}
	}
	return replay.Exchange{Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}, Body: body.Bytes()}
}

// cloudBody is the body a cloud platform takes for a recorded first-party request: the Messages
// body without model, with the platform's anthropic_version, and on Bedrock without stream (the
// SDK's bedrock and vertex packages, as the recorded cloud traffic shows).
func cloudBody(t testing.TB, recorded []byte, version string) []byte {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(recorded, &req); err != nil {
		t.Fatal(err)
	}
	delete(req, "model")
	if strings.HasPrefix(version, "bedrock") {
		delete(req, "stream")
	}
	req["anthropic_version"] = version
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The recorded image conversations (an image beside text; computer-use screenshots as images in
// tool_result blocks; called and streamed) sent to Claude on Amazon Bedrock and on Vertex AI:
// each request is the recorded first-party request as the platform takes it, at the platform's
// path, and the answers read as recorded.
func TestCloudMultimodal(t *testing.T) {
	type platform struct {
		name    string
		version string
		model   func(t *testing.T, url, model string) *Model
		path    func(model string, stream bool) string
		serve   func(t testing.TB, ex replay.Exchange) replay.Exchange
	}
	platforms := []platform{
		{
			name: "bedrock", version: "bedrock-2023-05-31",
			model: func(t *testing.T, url, model string) *Model {
				return newBedrockModel(t, url, BedrockConfig{Config: Config{Model: "us.anthropic." + model + "-v1:0"}})
			},
			path: func(model string, stream bool) string {
				if stream {
					return "/model/us.anthropic." + model + "-v1:0/invoke-with-response-stream"
				}
				return "/model/us.anthropic." + model + "-v1:0/invoke"
			},
			serve: onBedrock,
		},
		{
			name: "vertex", version: "vertex-2023-10-16",
			model: func(t *testing.T, url, model string) *Model {
				return newVertexModel(t, url, VertexConfig{Config: Config{Model: model}})
			},
			path: func(model string, stream bool) string {
				verb := ":rawPredict"
				if stream {
					verb = ":streamRawPredict"
				}
				return "/v1/projects/fantasy-playground-472418/locations/us-east5/publishers/anthropic/models/" + model + verb
			},
			serve: func(_ testing.TB, ex replay.Exchange) replay.Exchange { return ex },
		},
	}
	for _, pl := range platforms {
		for _, tc := range multimodalCases {
			t.Run(pl.name+"/"+tc.name, func(t *testing.T) {
				exs := providertest.Load(t, "multimodal", tc.name)
				served := make([]replay.Exchange, len(exs))
				for i, ex := range exs {
					served[i] = pl.serve(t, ex)
				}
				srv := replay.NewServer(t, served...)
				tc.run(t, pl.model(t, srv.URL, tc.model), exs)
				if srv.Served() != len(exs) {
					t.Fatalf("served %d of %d exchanges", srv.Served(), len(exs))
				}
				for i, r := range srv.Requests() {
					if want := pl.path(tc.model, tc.stream); r.Path != want {
						t.Errorf("request %d: path %s, want %s", i+1, r.Path, want)
					}
					checkRequest(t, r.Body, cloudBody(t, exs[i].RequestBody, pl.version))
				}
			})
		}
	}
}

// Claude on Bedrock and Vertex AI takes media as base64 only: a part by URL, which the
// first-party API fetches, is refused there, naming the platform, before any request.
func TestCloudRefusesURLs(t *testing.T) {
	for _, p := range []content.Part{
		content.ImageURL("https://example.com/a.png"),
		content.DocumentURL("https://example.com/r.pdf", "application/pdf"),
	} {
		for _, tc := range []struct {
			name  string
			model func(url string) *Model
		}{
			{"Amazon Bedrock", func(url string) *Model { return newBedrockModel(t, url, BedrockConfig{}) }},
			{"Vertex AI", func(url string) *Model { return newVertexModel(t, url, VertexConfig{}) }},
		} {
			for _, msgs := range [][]chat.Message{
				{chat.User("look", p)},
				{chat.User("look"), chat.Assistant("", chat.ToolCall{ID: "t1", Name: "fetch", Arguments: `{}`}),
					chat.ToolMessage(chat.ToolResult{ID: "t1", Name: "fetch", Parts: []content.Part{p}})},
			} {
				srv := replay.NewServer(t)
				m := tc.model(srv.URL)
				for _, stream := range []bool{false, true} {
					_, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: msgs}, stream)
					var u *content.Unsupported
					if !errors.As(err, &u) || !strings.HasPrefix(err.Error(), "anthropic: cannot send") ||
						!strings.Contains(err.Error(), "by URL: Claude on "+tc.name+" takes media as base64 only") {
						t.Errorf("%s, %s, stream=%v: err = %v", tc.name, p, stream, err)
					}
				}
				if srv.Served() != 0 {
					t.Errorf("%s: %d requests sent", tc.name, srv.Served())
				}
			}
		}
	}
	// The first-party API takes them as URL sources.
	req, err := newTestModel(t, "http://127.0.0.1:1", Config{}).request(&chat.Prompt{Messages: []chat.Message{
		chat.User("look", content.ImageURL("https://example.com/a.png"), content.DocumentURL("https://example.com/r.pdf", "application/pdf"))}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(req.params.Messages)
	for _, want := range []string{`{"source":{"url":"https://example.com/a.png","type":"url"},"type":"image"}`, `{"source":{"url":"https://example.com/r.pdf","type":"url"},"type":"document"}`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("messages %s lack %s", b, want)
		}
	}
}
