package compact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/openai"
	"github.com/wield-ai/wield/tool"
)

// The providers' native context management, end to end: a tool loop on each provider's real
// client against a server that behaves as the provider's reference says (Anthropic's context
// editing; the Responses API's compaction in OpenAI's OpenAPI description), written from the
// references, since no recording of either exists. The server acts only when the request's
// context management asks it to, at the threshold asked; the test checks that the loop's next
// request shows what the server did, as the compactor's own stubs or summary, that the compactor
// did not clear anything itself, and that the fact the server took out is fetched back by id.

const (
	nativeFact  = "The vault code is 7391-ALPHA."
	nativePages = 12
	nativeB     = 8000 // the compactor's budget; the provider is asked to act at 6000
)

// nativePage is page i, of about size bytes (3000 when 0).
func nativePage(i, size int) string {
	if size == 0 {
		size = 3000
	}
	var b strings.Builder
	if i == 1 {
		b.WriteString(nativeFact + " ")
	}
	for b.Len() < size {
		fmt.Fprintf(&b, "page %d line %d: lorem ipsum dolor sit amet. ", i, b.Len())
	}
	return b.String()
}

var pageTool = func() tool.Tool {
	t, err := tool.Func("page", "reads a page", func(_ context.Context, in struct {
		Page int `json:"page"`
		Size int `json:"size,omitempty"`
	}) (string, error) {
		return nativePage(in.Page, in.Size), nil
	})
	if err != nil {
		panic(err)
	}
	return t
}()

// nativeServer holds what both providers' scripted servers share: the rounds, and what each
// request held.
type nativeServer struct {
	t        *testing.T
	mu       sync.Mutex
	rounds   int
	acted    []int // the requests (0-based) after which the server cleared or compacted
	requests []nativeRequest
	fetched  string
	pageSize int // the size each page read asks for; 0 for the tool's default
}

type nativeRequest struct {
	tokens    int               // the server's own count: a token per three bytes of body
	threshold int               // the threshold the request's context management asked for
	keep      int               // Anthropic's keep
	results   map[string]string // tool results by call id, as sent
	order     []string          // their ids, oldest first
	tools     []string
	first     string // the first input item's type (Responses)
}

// receive decodes a request's body into req, the provider's view of it, and begins the record of
// it: the server's token count (a token per three bytes) and the tools it offers. It locks s for
// the caller to unlock.
func (s *nativeServer) receive(body []byte, req any) nativeRequest {
	if err := json.Unmarshal(body, req); err != nil {
		s.t.Errorf("request: %v", err)
	}
	var offered struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &offered)
	nr := nativeRequest{tokens: len(body) / 3, results: map[string]string{}}
	for _, tl := range offered.Tools {
		nr.tools = append(nr.tools, tl.Name)
	}
	s.mu.Lock()
	return nr
}

// next returns the reply of this round: a page read, a fetch of what the server took out, or the
// answer from what the fetch gave.
func (s *nativeServer) next(fetchID string) (name, args, answer string) {
	s.rounds++
	switch {
	case s.rounds <= nativePages && s.pageSize > 0:
		return "page", fmt.Sprintf(`{"page":%d,"size":%d}`, s.rounds, s.pageSize), ""
	case s.rounds <= nativePages:
		return "page", fmt.Sprintf(`{"page":%d}`, s.rounds), ""
	case s.rounds == nativePages+1:
		return compact.FetchToolName, fmt.Sprintf(`{"id":%q}`, fetchID), ""
	}
	r := s.requests[len(s.requests)-1]
	s.fetched = r.results[r.order[len(r.order)-1]]
	return "", "", "From the fetched text: " + s.fetched
}

func nativeLoop(t *testing.T, m chat.Model, cfg compact.Config) (*client.Response, []*client.Compaction) {
	t.Helper()
	c := compact.New(cfg)
	cl, err := client.New(m, client.WithTools(pageTool),
		client.WithAdvisors(c, client.NewToolLoop(client.ToolLoopConfig{MaxIterations: 40, Hooks: c.Hooks()})))
	if err != nil {
		t.Fatal(err)
	}
	var events []*client.Compaction
	var final *client.Response
	for ev, err := range cl.Prompt(fmt.Sprintf("Read pages 1 to %d, then tell me the vault code.", nativePages)).Stream(context.Background()).Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Compaction != nil {
			events = append(events, ev.Compaction)
		}
		if ev.Done != nil {
			final = ev.Done
		}
	}
	return final, events
}

// nativeRun runs the loop on m, compacted against budget, with the server s, and checks what
// every provider's native mode shares: the server acted; the answer holds the fact the server
// took out; each request asked for the provider's context management at three quarters of the
// budget, holds no stub of the compactor's own clearing, passes check (what the history must
// show of what the server did), and, after one the server acted on, offers the fetch tool. It
// returns the loop's compaction events.
func nativeRun(t *testing.T, s *nativeServer, m chat.Model, budget int, check func(i int, r nativeRequest)) []*client.Compaction {
	t.Helper()
	resp, events := nativeLoop(t, m, compact.Config{Native: true, Budget: budget, ResultCap: -1, KeepResults: 2})
	if len(s.acted) == 0 {
		t.Fatal("the server never acted: the test proves nothing")
	}
	if !strings.Contains(resp.Text(), nativeFact) {
		t.Fatalf("answer %q", resp.Text())
	}
	for i, r := range s.requests {
		if r.threshold != budget*3/4 {
			t.Fatalf("request %d asked for the provider's context management at %d", i, r.threshold)
		}
		for _, text := range r.results {
			if strings.HasPrefix(text, "[cleared:") && !strings.Contains(text, "cleared by the provider") {
				t.Fatalf("request %d: the compactor cleared a result itself: %s", i, text)
			}
		}
		check(i, r)
		if slices.Contains(s.acted, i-1) && !slices.Contains(r.tools, compact.FetchToolName) {
			t.Fatalf("request %d does not offer %s", i, compact.FetchToolName)
		}
	}
	return events
}

// anthropicStream answers a round as the Messages API streams it: a compaction block first when
// compaction (its delta's fields) is set, then the answer's text or the tool call, and deltaExtra
// at the end of message_delta.
func anthropicStream(w http.ResponseWriter, round, tokens int, compaction, name, args, answer, deltaExtra string) {
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, round, tokens))
	index := 0
	if compaction != "" {
		sse(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"compaction"}}`)
		sse(w, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta",`+compaction+`}}`)
		sse(w, "content_block_stop", `{"type":"content_block_stop","index":0}`)
		index++
	}
	stop := "tool_use"
	if answer != "" {
		stop = "end_turn"
		text, _ := json.Marshal(answer)
		sse(w, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index))
		sse(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, text))
	} else {
		sse(w, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d","name":%q,"input":{}}}`, index, round, name))
		sse(w, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%q}}`, index, args))
	}
	sse(w, "content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
	sse(w, "message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":20}%s}`, stop, deltaExtra))
	sse(w, "message_stop", `{"type":"message_stop"}`)
}

func TestAnthropicContextEditing(t *testing.T) {
	s := &nativeServer{t: t}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ContextManagement anthropicEdits `json:"context_management"`
			Messages          []struct {
				Content []anthropicBlock `json:"content"`
			} `json:"messages"`
		}
		nr := s.receive(body, &req)
		defer s.mu.Unlock()
		if e := req.ContextManagement.Edits; len(e) == 1 && e[0].Type == "clear_tool_uses_20250919" && e[0].Trigger.Type == "input_tokens" && e[0].Keep.Type == "tool_uses" {
			nr.threshold, nr.keep = e[0].Trigger.Value, e[0].Keep.Value
		}
		if !slices.Contains(r.Header.Values("anthropic-beta"), "context-management-2025-06-27") {
			t.Errorf("request %d without the context management beta", len(s.requests))
		}
		for _, m := range req.Messages {
			for _, b := range m.Content {
				if b.Type == "tool_result" {
					nr.results[b.ToolUseID] = resultText(b.Content)
					nr.order = append(nr.order, b.ToolUseID)
				}
			}
		}
		s.requests = append(s.requests, nr)
		// Over the trigger, the oldest results but the newest keep are cleared, as the reference
		// says; results the server cleared before count again, since the request holds them.
		edits := `{"applied_edits":[]}`
		if nr.threshold > 0 && nr.tokens > nr.threshold && len(nr.order) > nr.keep {
			n, saved := len(nr.order)-nr.keep, 0
			for _, id := range nr.order[:n] {
				saved += len(nr.results[id]) / 3
			}
			edits = fmt.Sprintf(`{"applied_edits":[{"type":"clear_tool_uses_20250919","cleared_tool_uses":%d,"cleared_input_tokens":%d}]}`, n, saved)
			s.acted = append(s.acted, len(s.requests)-1)
		}
		name, args, answer := s.next("toolu_1")
		anthropicStream(w, s.rounds, nr.tokens, "", name, args, answer, `,"context_management":`+edits)
	}))
	defer srv.Close()
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k", Model: "claude-sonnet-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	events := nativeRun(t, s, m, nativeB, func(i int, r nativeRequest) {
		if r.keep != 2 {
			t.Fatalf("request %d asked for clearing keeping %d", i, r.keep)
		}
		stubs := 0
		for _, text := range r.results {
			if strings.HasPrefix(text, "[cleared:") {
				stubs++
			}
		}
		if i <= s.acted[0] && stubs > 0 {
			t.Fatalf("request %d holds stubs before the server cleared anything", i)
		}
		if slices.Contains(s.acted, i-1) {
			// The history shows what the server cleared: all but the newest two results before it.
			prev := s.requests[i-1]
			for _, id := range prev.order[:len(prev.order)-prev.keep] {
				if !strings.HasPrefix(r.results[id], "[cleared:") {
					t.Fatalf("request %d: %s, cleared by the server, went back whole", i, id)
				}
			}
		}
	})
	cleared := 0
	for _, e := range events {
		cleared += len(e.Cleared)
	}
	if cleared == 0 {
		t.Fatal("no compaction event named the cleared results")
	}
}

func sse(w io.Writer, event, data string) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
}

// resultText reads a tool_result's content: a string or text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

func TestResponsesCompaction(t *testing.T) {
	s := &nativeServer{t: t}
	compactions := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ContextManagement []struct {
				Type             string `json:"type"`
				CompactThreshold int    `json:"compact_threshold"`
			} `json:"context_management"`
			Input []struct {
				Type             string          `json:"type"`
				ID               string          `json:"id"`
				CallID           string          `json:"call_id"`
				Output           json.RawMessage `json:"output"`
				EncryptedContent string          `json:"encrypted_content"`
			} `json:"input"`
		}
		nr := s.receive(body, &req)
		defer s.mu.Unlock()
		if cm := req.ContextManagement; len(cm) == 1 && cm[0].Type == "compaction" {
			nr.threshold = cm[0].CompactThreshold
		}
		for i, it := range req.Input {
			typ := it.Type
			if typ == "" {
				typ = "message"
			}
			if i == 0 {
				nr.first = typ
			}
			switch typ {
			case "function_call_output":
				var out string
				_ = json.Unmarshal(it.Output, &out)
				nr.results[it.CallID], nr.order = out, append(nr.order, it.CallID)
			case "compaction":
				if it.EncryptedContent != fmt.Sprintf("enc-%s", it.ID) {
					t.Errorf("compaction item %s went back as %q", it.ID, it.EncryptedContent)
				}
			}
		}
		s.requests = append(s.requests, nr)
		var output []string
		if nr.threshold > 0 && nr.tokens > nr.threshold {
			compactions++
			id := fmt.Sprintf("cmp_%d", compactions)
			output = append(output, fmt.Sprintf(`{"id":%q,"type":"compaction","encrypted_content":"enc-%s"}`, id, id))
			s.acted = append(s.acted, len(s.requests)-1)
		}
		name, args, answer := s.next("cmp_1")
		if answer != "" {
			text, _ := json.Marshal(answer)
			output = append(output, fmt.Sprintf(`{"id":"msg_%d","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, s.rounds, text))
		} else {
			output = append(output, fmt.Sprintf(`{"id":"fc_%d","type":"function_call","status":"completed","call_id":"call_%d","name":%q,"arguments":%q}`, s.rounds, s.rounds, name, args))
		}
		// The loop streams: each output item goes as the reference's added and done events.
		w.Header().Set("Content-Type", "text/event-stream")
		seq := 0
		event := func(typ, rest string) {
			sse(w, typ, fmt.Sprintf(`{"type":%q,"sequence_number":%d,%s}`, typ, seq, rest))
			seq++
		}
		event("response.created", fmt.Sprintf(`"response":{"id":"resp_%d","object":"response","status":"in_progress","model":"gpt-5.1-codex-max","output":[]}`, s.rounds))
		for i, item := range output {
			event("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":%s`, i, item))
			event("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, i, item))
		}
		event("response.completed", fmt.Sprintf(`"response":{"id":"resp_%d","object":"response","created_at":1764967971,"status":"completed","model":"gpt-5.1-codex-max","output":[%s],"usage":{"input_tokens":%d,"input_tokens_details":{"cached_tokens":0},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}`,
			s.rounds, strings.Join(output, ","), nr.tokens, nr.tokens+20))
	}))
	defer srv.Close()
	m, err := openai.NewResponses(openai.Config{BaseURL: srv.URL, APIKey: "k", Model: "gpt-5.1-codex-max"})
	if err != nil {
		t.Fatal(err)
	}
	events := nativeRun(t, s, m, nativeB, func(i int, r nativeRequest) {
		// The compaction item takes the place of all that came before it.
		if slices.Contains(s.acted, i-1) && (r.first != "compaction" || len(r.order) != 1) {
			t.Fatalf("request %d starts with %s and holds %d results, want the compaction item and this round's result", i, r.first, len(r.order))
		}
	})
	summarised := 0
	for _, e := range events {
		summarised += e.Summarized
	}
	if summarised == 0 {
		t.Fatal("no compaction event said what the provider's compaction replaced")
	}
}

// anthropicEdits is a Messages API request's context_management, as the scripted servers read it.
type anthropicEdits struct {
	Edits []struct {
		Type    string `json:"type"`
		Trigger struct {
			Type  string `json:"type"`
			Value int    `json:"value"`
		} `json:"trigger"`
		Keep struct {
			Type  string `json:"type"`
			Value int    `json:"value"`
		} `json:"keep"`
	} `json:"edits"`
}

// anthropicBlock is a content block of a Messages API request, as the scripted servers read it.
type anthropicBlock struct {
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	ToolUseID        string          `json:"tool_use_id"`
	Content          json.RawMessage `json:"content"`
	EncryptedContent string          `json:"encrypted_content"`
}

// Anthropic's compaction (on a model its documentation lists for it), end to end: the server
// compacts a request over the trigger asked, answering with a compaction block first, and drops
// what comes before the block in later requests, as the documentation says. The compactor shows
// the block in the history as its summary, the block goes back first in its turn, and the fact
// the summary replaced is fetched back by the summary's id.
func TestAnthropicCompaction(t *testing.T) {
	const budget = 80000 // the provider is asked to compact at 60,000, over the API's least
	s := &nativeServer{t: t, pageSize: 20000}
	compactions := 0
	var notes []string // what each request held before its compaction block
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ContextManagement anthropicEdits `json:"context_management"`
			Messages          []struct {
				Role    string            `json:"role"`
				Content []json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		nr := s.receive(body, &req)
		defer s.mu.Unlock()
		nr.tokens = 0 // counted below, from the last compaction block on
		if e := req.ContextManagement.Edits; len(e) == 1 && e[0].Type == "compact_20260112" && e[0].Trigger.Type == "input_tokens" {
			nr.threshold = e[0].Trigger.Value
		}
		if !slices.Contains(r.Header.Values("anthropic-beta"), "compact-2026-01-12") {
			t.Errorf("request %d without the compaction beta", len(s.requests))
		}
		// The API reads the request from its last compaction block on, which must open an
		// assistant turn and be the one the API gave.
		from := 0
		for i, m := range req.Messages {
			for j, raw := range m.Content {
				var b anthropicBlock
				_ = json.Unmarshal(raw, &b)
				if b.Type != "compaction" {
					continue
				}
				if m.Role != "assistant" || j != 0 {
					t.Errorf("request %d: a compaction block at %d of a %s turn", len(s.requests), j, m.Role)
				}
				var content string
				_ = json.Unmarshal(b.Content, &content)
				n := 0
				if _, err := fmt.Sscanf(b.EncryptedContent, "enc-%d", &n); err != nil || content != fmt.Sprintf("Summary %d of the conversation.", n) {
					t.Errorf("request %d: compaction block went back as %s", len(s.requests), raw)
				}
				from = i
			}
		}
		var before []string
		for i, m := range req.Messages {
			for _, raw := range m.Content {
				var b anthropicBlock
				_ = json.Unmarshal(raw, &b)
				if i < from {
					before = append(before, m.Role+":"+b.Type+":"+b.Text)
					continue
				}
				nr.tokens += len(raw) / 3
				if b.Type == "tool_result" {
					nr.results[b.ToolUseID] = resultText(b.Content)
					nr.order = append(nr.order, b.ToolUseID)
				}
			}
		}
		notes = append(notes, strings.Join(before, "|"))
		s.requests = append(s.requests, nr)
		name, args, answer := s.next("compaction-1")
		summary := ""
		if nr.threshold > 0 && nr.tokens > nr.threshold {
			// Over the trigger: the answer begins with the summary of the conversation so far.
			compactions++
			s.acted = append(s.acted, len(s.requests)-1)
			summary = fmt.Sprintf(`"content":"Summary %d of the conversation.","encrypted_content":"enc-%d"`, compactions, compactions)
		}
		anthropicStream(w, s.rounds, nr.tokens, summary, name, args, answer, "")
	}))
	defer srv.Close()
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k", Model: "claude-sonnet-4-6"})
	if err != nil {
		t.Fatal(err)
	}
	events := nativeRun(t, s, m, budget, func(i int, r nativeRequest) {
		// The history shows the block as the compactor's summary: before it, only the summary's
		// note, which names its id and holds the block's summary.
		if slices.Contains(s.acted, i-1) && (!strings.HasPrefix(notes[i], "user:text:[summary of the earlier conversation, id \"compaction-1\"") || !strings.Contains(notes[i], "Summary 1 of the conversation.") || strings.Contains(notes[i], "|")) {
			t.Fatalf("request %d holds before its compaction block: %.300s", i, notes[i])
		}
	})
	summarised := 0
	for _, e := range events {
		summarised += e.Summarized
	}
	if summarised == 0 {
		t.Fatal("no compaction event said what the provider's compaction replaced")
	}
}
