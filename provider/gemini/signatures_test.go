package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// wirePart is a part of a Gemini request or answer, as far as signatures go.
type wirePart struct {
	Text             *string                `json:"text"`
	Thought          bool                   `json:"thought"`
	ThoughtSignature string                 `json:"thoughtSignature"`
	FunctionCall     *struct{ Name string } `json:"functionCall"`
	InlineData       json.RawMessage        `json:"inlineData"`
	FileData         json.RawMessage        `json:"fileData"`
}

func (p wirePart) kind() string {
	switch {
	case p.FunctionCall != nil:
		return "call " + p.FunctionCall.Name
	case p.Thought:
		return "thought"
	case p.InlineData != nil || p.FileData != nil:
		return "media"
	case p.Text != nil:
		return "text"
	}
	return "nothing"
}

// signed lists the signed parts among parts, in order, each as its kind and signature.
func signed(parts []wirePart) []string {
	var out []string
	for _, p := range parts {
		if p.ThoughtSignature != "" {
			out = append(out, p.kind()+" "+p.ThoughtSignature)
		}
	}
	return out
}

// answerParts reads the model's parts from a recorded answer, whole or streamed, in the order
// they came (the first candidate).
func answerParts(t testing.TB, ex replay.Exchange) []wirePart {
	t.Helper()
	payloads := [][]byte{ex.Body}
	if strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream") {
		payloads = replay.SSEData(ex.Body)
	}
	var out []wirePart
	for _, p := range payloads {
		var v struct {
			Candidates []struct {
				Content struct{ Parts []wirePart } `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(p, &v); err != nil {
			t.Fatalf("recorded answer: %v", err)
		}
		if len(v.Candidates) > 0 {
			out = append(out, v.Candidates[0].Content.Parts...)
		}
	}
	return out
}

// sentModelTurn returns the parts of the model turn of a request wield sent, as sent.
func sentModelTurn(t testing.TB, body []byte) json.RawMessage {
	t.Helper()
	var v struct {
		Contents []struct {
			Role  string
			Parts json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Contents {
		if c.Role == "model" {
			return c.Parts
		}
	}
	t.Fatalf("no model turn in %s", body)
	return nil
}

func decodeParts(t testing.TB, raw json.RawMessage) []wirePart {
	t.Helper()
	var parts []wirePart
	if err := json.Unmarshal(raw, &parts); err != nil {
		t.Fatal(err)
	}
	return parts
}

// echo replays one recorded answer (called or streamed, as recorded), stores it as JSON and reads
// it back as a stored conversation would, answers its calls, sends the conversation on the same
// way, and returns the model turn of that second request as sent.
func echo(t *testing.T, ex replay.Exchange, vertex bool) json.RawMessage {
	t.Helper()
	stream := strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream")
	ok := `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP","index":0}]}`
	next := replay.Exchange{Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(ok)}
	if stream {
		next = replay.Exchange{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte("data: " + ok + "\r\n\r\n")}
	}
	srv := replay.NewServer(t, ex, next)
	var m *Model
	if vertex {
		m = newVertexModel(t, srv, "p", "us-east5", Config{})
	} else {
		m, _ = newTestModel(t, srv.URL, Config{})
	}
	history := []chat.Message{chat.User("go on")}
	resp, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history}, stream)
	if err != nil {
		t.Fatal(err)
	}
	var msg chat.Message
	if err := json.Unmarshal(marshal(t, resp.Generations[0].Message), &msg); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(msg, resp.Generations[0].Message) {
		t.Fatalf("the answer did not survive a JSON round trip: %s", marshal(t, resp.Generations[0].Message))
	}
	history = append(history, msg)
	if len(msg.ToolCalls) > 0 {
		var results []chat.ToolResult
		for _, c := range msg.ToolCalls {
			results = append(results, chat.ToolResult{ID: c.ID, Name: c.Name, Content: "done"})
		}
		history = append(history, chat.ToolMessage(results...))
	} else {
		history = append(history, chat.User("and then?"))
	}
	if _, err := providertest.Run(context.Background(), m, &chat.Prompt{Messages: history}, stream); err != nil {
		t.Fatal(err)
	}
	return sentModelTurn(t, srv.Requests()[1].Body)
}

// Every signature of every recorded Gemini answer (Gemini API and Vertex AI, called and
// streamed: function calls with signatures, parallel calls with one, thoughts, Gemini 3's trailing
// empty part, Vertex's streamed arguments) goes back on the next request on the same kind of
// part, in the order it came; no part goes back empty.
func TestRecordedSignaturesInPlace(t *testing.T) {
	var cases []string
	for _, pattern := range []string{"testdata/*/01-response.*", "testdata/*/*/01-response.*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			cases = append(cases, strings.TrimPrefix(filepath.Dir(f), "testdata/"))
		}
	}
	if len(cases) < 15 {
		t.Fatalf("only %d recorded cases found", len(cases))
	}
	seen := 0
	for _, dir := range cases {
		exs := providertest.Load(t, strings.Split(dir, "/")...)
		for i, ex := range exs {
			if ex.Status != 0 && ex.Status != http.StatusOK {
				continue
			}
			want := answerParts(t, ex)
			if len(want) == 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%02d", dir, i+1), func(t *testing.T) {
				sent := decodeParts(t, echo(t, ex, strings.HasPrefix(dir, "vertex/")))
				if got, want := signed(sent), signed(want); !reflect.DeepEqual(got, want) {
					t.Errorf("signed parts sent back:\n%q\nrecorded:\n%q", got, want)
				}
				seen += len(signed(want))
				for j, p := range sent {
					if p.kind() == "nothing" || p.kind() == "text" && *p.Text == "" && p.ThoughtSignature == "" {
						t.Errorf("part %d went back empty: %+v", j, p)
					}
				}
			})
		}
	}
	if seen < 10 {
		t.Errorf("only %d recorded signatures checked", seen)
	}
}

// A signature that came on its own empty text part at the end of an answer (the shape Google
// documents for Gemini 3: the last streamed chunk, {"text":"","thoughtSignature":…}) goes back
// as that empty part, text and all, after the text and not merged into it. No recording holds
// one, so the recorded Vertex answers are replayed with that part added after their text.
func TestEmptySignedPartOnRecordedAnswer(t *testing.T) {
	sig := "CiwBjz1rX5J0Jni1UwQkH3SeTysS4TF4kGuzSS99EDy6+inHVbJu1Xo0pYpXeQ=="
	empty := `{"text":"","thoughtSignature":"` + sig + `"}`
	for _, tc := range []struct{ dir, text string }{
		{"fantasy-vertex-gemini-tool-loop-gemini-2.5-flash", "The weather in Florence,Italy is 40 C."},
		{"fantasy-vertex-gemini-tool-loop-streaming-gemini-2.5-flash", "The weather in Florence, Italy is 40 C."},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			ex := providertest.Load(t, "vertex", tc.dir)[1]
			if strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream") {
				ex.Body = append(ex.Body, []byte("data: {\"candidates\": [{\"content\": {\"role\": \"model\",\"parts\": ["+empty+"]},\"finishReason\": \"STOP\"}],\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n")...)
			} else {
				var v map[string]any
				if err := json.Unmarshal(ex.Body, &v); err != nil {
					t.Fatal(err)
				}
				content := v["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)
				var part any
				_ = json.Unmarshal([]byte(empty), &part)
				content["parts"] = append(content["parts"].([]any), part)
				ex.Body, _ = json.Marshal(v)
			}
			raw := echo(t, ex, true)
			if want := `[{"text":"` + tc.text + `"},{"text":"","thoughtSignature":"` + sig + `"}]`; !providertest.JSONEqual(t, string(raw), want) {
				t.Fatalf("model turn sent back %s, want %s", raw, want)
			}
		})
	}
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
