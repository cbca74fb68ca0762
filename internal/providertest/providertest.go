package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Load reads the recorded case testdata/elem... of the package under test.
func Load(t testing.TB, elem ...string) []replay.Exchange {
	t.Helper()
	exs, err := replay.Load(filepath.Join(append([]string{"testdata"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return exs
}

// Tool is [tool.Func] failing t instead of returning an error: a real Go function exposed as a
// typed tool, its input schema inferred by wield.
func Tool[In, Out any](t testing.TB, name, description string, fn func(context.Context, In) (Out, error)) tool.Tool {
	t.Helper()
	tl, err := tool.Func(name, description, fn)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// RawTool is a tool with whatever definition a test gives it, as a tool from elsewhere (an MCP
// server) might have. Calling it returns an empty result.
type RawTool tool.Definition

// Definition implements [tool.Tool].
func (r RawTool) Definition() tool.Definition { return tool.Definition(r) }

// Metadata implements [tool.Tool].
func (RawTool) Metadata() tool.Metadata { return tool.Metadata{} }

// Call implements [tool.Tool].
func (RawTool) Call(context.Context, string) (string, error) { return "", nil }

// ImagePrompt is the conversation of the fantasy image-input recordings, which anthropic, gemini
// and openai each hold: a system prompt and a user asking, in at most 4000 tokens, for a
// description of png, the image the recording sent.
func ImagePrompt(png []byte) *chat.Prompt {
	return &chat.Prompt{Messages: []chat.Message{
		chat.System("You are a helpful assistant"),
		chat.User("Describe the image briefly in English.", content.Image(png, "image/png")),
	}, Options: &chat.Options{MaxTokens: 4000}}
}

// Execute runs the tool calls of resp with a default toolcall.Manager, as the tool loop does,
// and returns the history to send next.
func Execute(t testing.TB, p *chat.Prompt, resp *chat.Response) []chat.Message {
	t.Helper()
	res, err := toolcall.New(toolcall.Config{}).Execute(context.Background(), p, resp)
	if err != nil {
		t.Fatal(err)
	}
	return res.History
}

// Run sends p to m: with Call, or with Stream, aggregated, when stream is set.
func Run(ctx context.Context, m chat.Model, p *chat.Prompt, stream bool) (*chat.Response, error) {
	if stream {
		return chat.Aggregate(m.Stream(ctx, p))
	}
	return m.Call(ctx, p)
}

// Answer is [Run] in a test: m's answer to p, called or streamed, failing t at once on an error.
func Answer(t testing.TB, m chat.Model, p *chat.Prompt, stream bool) *chat.Response {
	t.Helper()
	resp, err := Run(context.Background(), m, p, stream)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// CallAndStream checks m's answer to p twice, in the subtests "call" and "stream": called, and
// streamed and aggregated. An error fails the subtest before check runs.
func CallAndStream(t *testing.T, m chat.Model, p *chat.Prompt, check func(t *testing.T, resp *chat.Response)) {
	for _, stream := range []bool{false, true} {
		name := "call"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) { check(t, Answer(t, m, p, stream)) })
	}
}

// Concurrently runs fn(0) … fn(n-1) in n goroutines at once, as callers sharing one model do,
// and fails t with each error they return.
func Concurrently(t testing.TB, n int, fn func(i int) error) {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// Send sends a client request: with Call, or with Stream when stream is set, reading the
// turn's events as they stream. It fails t on an error and returns the client's response and the
// streamed text of the turn's own answer. A streamed turn must show each tool call's arguments as
// fragments ([client.ToolCallDelta]) before the call starts or waits, joining to the arguments
// the call ran with (CheckDeltas).
func Send(t testing.TB, spec *client.Spec, stream bool) (*client.Response, string) {
	t.Helper()
	if !stream {
		resp, err := spec.Call(context.Background()).Response()
		if err != nil {
			t.Fatal(err)
		}
		return resp, ""
	}
	s := spec.Stream(context.Background())
	var b strings.Builder
	var events []*client.Event
	for ev, err := range s.Events() {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
		if ev.Agent() == "" {
			b.WriteString(ev.Text())
		}
	}
	if s.Response() == nil {
		t.Fatal("no response at the end of the stream")
	}
	CheckDeltas(t, events)
	return s.Response(), b.String()
}

// CheckDeltas fails t unless every tool call that starts or waits for approval in events was
// streamed first as fragments of its id, in order, whose arguments join to the call's.
func CheckDeltas(t testing.TB, events []*client.Event) {
	t.Helper()
	type key struct{ agent, id string }
	streamed := map[key]*strings.Builder{}
	seen := map[key]bool{}
	for i, ev := range events {
		if d := ev.ToolDelta; d != nil {
			if d.ID == "" || d.Name == "" {
				t.Fatalf("event %d: a fragment of call %d without its id or name: %+v", i, d.Index, *d)
			}
			k := key{ev.Agent(), d.ID}
			if seen[k] {
				t.Fatalf("event %d: a fragment of call %s after the call started", i, d.ID)
			}
			if streamed[k] == nil {
				streamed[k] = new(strings.Builder)
			}
			streamed[k].WriteString(d.Arguments)
			continue
		}
		te := ev.Tool
		if te == nil || te.Kind != client.ToolStarted && te.Kind != client.ToolApprovalRequired {
			continue
		}
		k := key{ev.Agent(), te.Call.ID}
		seen[k] = true
		args, ok := streamed[k]
		if !ok {
			t.Fatalf("event %d: call %s (%s) started with no fragment streamed before it", i, te.Call.ID, te.Call.Name)
		}
		if got, want := args.String(), te.Call.Arguments; got != want && !(got == "" && want == "{}") {
			t.Fatalf("event %d: call %s: fragments join to %q, the call ran with %q", i, te.Call.ID, got, want)
		}
	}
}

// JSONError is an answer with the status, a JSON body and the headers given as name, value pairs.
func JSONError(status int, body string, header ...string) replay.Exchange {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return replay.Exchange{Status: status, Header: h, Body: []byte(body)}
}

// SSE frames payloads as server-sent events named by their "type" member, as the Anthropic and
// OpenAI streams name them. A payload without one (a malformed one, for a fault test) is written
// as "name|data": the event name, a bar, then the data line as is.
func SSE(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		name, data := eventType(p), p
		if name == "" {
			name, data, _ = strings.Cut(p, "|")
		}
		b.WriteString("event: " + name + "\ndata: " + data + "\n\n")
	}
	return []byte(b.String())
}

func eventType(payload string) string {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal([]byte(payload), &head) != nil {
		return ""
	}
	return head.Type
}

// SameRequests fails t unless every request srv received has the body of the first: a retry
// resends the request unchanged.
func SameRequests(t testing.TB, srv *replay.Server) {
	t.Helper()
	reqs := srv.Requests()
	for i, r := range reqs {
		if string(r.Body) != string(reqs[0].Body) {
			t.Fatalf("request %d differs from the first: a retry must resend the request unchanged", i+1)
		}
	}
}

// Recorded starts a server on 127.0.0.1 answering every request with the recorded body in file,
// as contentType: the API an example talks to. Examples have no testing.T: a file that cannot be
// read stops the program.
func Recorded(file, contentType string) *httptest.Server {
	body, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
}

// Variant serves testdata/variants/file, an answer written from a provider's API description
// rather than recorded, with the content type its extension names: an SSE stream for .sse,
// NDJSON for .ndjson (a stream), JSON otherwise. It returns the server's URL and whether the
// answer is a stream.
func Variant(t testing.TB, file string) (url string, stream bool) {
	t.Helper()
	ex, stream := VariantAnswer(t, file)
	return replay.NewServer(t, ex).URL, stream
}

// RunVariant asks "Weather in Oslo?", the question the variant answers are written for, of the
// model newModel makes on a server answering with testdata/variants/file ([Variant]): streamed
// when the file holds a stream, called otherwise.
func RunVariant(t testing.TB, file string, newModel func(url string) (chat.Model, error)) (*chat.Response, error) {
	t.Helper()
	url, stream := Variant(t, file)
	m, err := newModel(url)
	if err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), m, &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Oslo?")}}, stream)
}

// VariantError checks the answer to a variant that sends the text "Hel" and then ends in an
// error (an error event or line mid-stream): err must be an E that ok accepts (want says which,
// for the failure), and got must hold the text that came before it.
func VariantError[E error](t testing.TB, got *chat.Response, err error, want string, ok func(E) bool) {
	t.Helper()
	var e E
	if !errors.As(err, &e) || !ok(e) {
		t.Fatalf("error %v (%+v), want %s", err, e, want)
	}
	if got.Text() != "Hel" {
		t.Errorf("text before the error %q, want %q", got.Text(), "Hel")
	}
}

// VariantAnswer is the answer [Variant] serves, and whether it is a stream.
func VariantAnswer(t testing.TB, file string) (ex replay.Exchange, stream bool) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "variants", file))
	if err != nil {
		t.Fatal(err)
	}
	ct := "application/json"
	switch filepath.Ext(file) {
	case ".sse":
		ct, stream = "text/event-stream", true
	case ".ndjson":
		ct, stream = "application/x-ndjson", true
	}
	return replay.Exchange{Header: http.Header{"Content-Type": {ct}}, Body: body}, stream
}

// OneGeneration returns the one generation of got, failing t at once if it has another number.
func OneGeneration(t testing.TB, got *chat.Response) chat.Generation {
	t.Helper()
	if got == nil || len(got.Generations) != 1 {
		n := 0
		if got != nil {
			n = len(got.Generations)
		}
		t.Fatalf("%d generations, want 1", n)
	}
	return got.Generations[0]
}
