package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/toolsearch"
)

// embedRequest is EmbedRequest of Ollama's OpenAPI description; the fake server rejects fields
// it does not list.
type embedRequest struct {
	Model      string          `json:"model"`
	Input      json.RawMessage `json:"input"`
	Truncate   *bool           `json:"truncate,omitempty"`
	Dimensions *int            `json:"dimensions,omitempty"`
	KeepAlive  json.RawMessage `json:"keep_alive,omitempty"`
	Options    map[string]any  `json:"options,omitempty"`
}

// fakeOllamaEmbed is /api/embed on 127.0.0.1, answering in the shape of EmbedResponse with
// vectors computed from each input's words by toolsearch's HashingEmbedder.
type fakeOllamaEmbed struct {
	URL    string
	mu     sync.Mutex
	inputs [][]string
	reqs   []embedRequest
}

func newFakeOllamaEmbed(t testing.TB) *fakeOllamaEmbed {
	f := &fakeOllamaEmbed{}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *fakeOllamaEmbed) serve(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":%q}`, msg)
	}
	if r.Method != http.MethodPost || r.URL.Path != "/api/embed" {
		fail(http.StatusNotFound, "404 page not found")
		return
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req embedRequest
	if err := dec.Decode(&req); err != nil || req.Model == "" {
		fail(http.StatusBadRequest, fmt.Sprint("invalid request: ", err))
		return
	}
	var input []string
	if err := json.Unmarshal(req.Input, &input); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			fail(http.StatusBadRequest, "invalid input type")
			return
		}
		input = []string{one}
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, input)
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	dim := 0
	if req.Dimensions != nil {
		dim = *req.Dimensions
	}
	vecs, _ := (&toolsearch.HashingEmbedder{Dim: dim}).Embed(r.Context(), input)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs,
		"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": len(input) * 4})
}

func (f *fakeOllamaEmbed) requests() ([][]string, []embedRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.inputs), slices.Clone(f.reqs)
}

// newTestEmbedder returns an Embedder on url whose retry waits are recorded (in a Waits of its
// own unless cfg has one) instead of taken.
func newTestEmbedder(t testing.TB, url string, cfg EmbedderConfig) *Embedder {
	t.Helper()
	cfg.BaseURL = url
	if cfg.Model == "" {
		cfg.Model = "embeddinggemma"
	}
	if cfg.sleep == nil {
		cfg.sleep = (&providertest.Waits{}).Sleep
	}
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedderBatches(t *testing.T) {
	srv := newFakeOllamaEmbed(t)
	e := newTestEmbedder(t, srv.URL, EmbedderConfig{BatchSize: 2})
	texts := []string{"weather in a city", "stock price", "send an email", "translate text", "book a flight"}
	providertest.EmbedHashed(t, e, 0, "", texts...)
	inputs, reqs := srv.requests()
	if !slices.EqualFunc(inputs, [][]string{texts[:2], texts[2:4], texts[4:]}, slices.Equal) {
		t.Errorf("batches %q", inputs)
	}
	if reqs[0].Model != "embeddinggemma" || reqs[0].Dimensions != nil || reqs[0].Truncate != nil || reqs[0].KeepAlive != nil {
		t.Errorf("request %+v", reqs[0])
	}
	if got, err := e.Embed(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("no texts: %v, %v", got, err)
	}
	if inputs, _ := srv.requests(); len(inputs) != 3 {
		t.Errorf("%d requests after embedding nothing", len(inputs))
	}
}

func TestEmbedderSettings(t *testing.T) {
	srv := newFakeOllamaEmbed(t)
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(srv.URL, "http://"))
	e, err := NewEmbedder(EmbedderConfig{Model: "nomic-embed-text", Dimensions: 64, Prefix: "search_query: ",
		Configure: func(r *api.EmbedRequest) {
			r.KeepAlive = &api.Duration{Duration: 10 * time.Minute}
			r.Truncate = chat.Ptr(false)
			r.Options["num_ctx"] = 2048
		}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "nomic-embed-text" || e.Client() == nil {
		t.Errorf("Model() = %q", e.Model())
	}
	providertest.EmbedHashed(t, e, 64, "search_query: ", "weather")
	inputs, reqs := srv.requests()
	r := reqs[0]
	if !slices.Equal(inputs[0], []string{"search_query: weather"}) || r.Dimensions == nil || *r.Dimensions != 64 ||
		r.Truncate == nil || *r.Truncate || string(r.KeepAlive) != `"10m0s"` || r.Options["num_ctx"] != float64(2048) {
		t.Errorf("request %+v, input %q", r, inputs[0])
	}
	for _, cfg := range []EmbedderConfig{{}, {Model: "m", Dimensions: -1}, {Model: "m", BatchSize: -1}, {Model: "m", BaseURL: "ftp://x"}} {
		if _, err := NewEmbedder(cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

// TestEmbedderDocsExample: the documentation's multiple-input example, answered as documented.
func TestEmbedderDocsExample(t *testing.T) {
	ex := load(t, "docs-embed-all-minilm")[0]
	srv := replay.NewServer(t, ex)
	e := newTestEmbedder(t, srv.URL, EmbedderConfig{Model: "all-minilm"})
	got, err := e.Embed(context.Background(), []string{"Why is the sky blue?", "Why is the grass green?"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Embeddings [][]float32 }
	if err := json.Unmarshal(ex.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !providertest.EqualVectors(got, doc.Embeddings) || got[1][0] != -0.0098027075 {
		t.Errorf("vectors %v", got)
	}
	var sent, recorded map[string]any
	req := srv.Requests()[0]
	if err := json.Unmarshal(req.Body, &sent); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ex.RequestBody, &recorded); err != nil {
		t.Fatal(err)
	}
	delete(sent, "options") // always sent, empty: the description types it as an object, not null
	if fmt.Sprint(sent) != fmt.Sprint(recorded) || req.Path != "/api/embed" || req.Method != http.MethodPost {
		t.Errorf("sent %s %s %v, documented %v", req.Method, req.Path, sent, recorded)
	}
}

// embedTarget is the Embedder under providertest's shared fault checks.
var embedTarget = providertest.EmbedTarget{
	Provider: providerName,
	New: func(t testing.TB, url string, o providertest.EmbedOptions) toolsearch.Embedder {
		return newTestEmbedder(t, url, EmbedderConfig{Dimensions: o.Dimensions, BatchSize: o.BatchSize, Transport: provider.Transport{MaxRetries: o.MaxRetries()}, sleep: o.Waits.Sleep})
	},
	Answer: func(vecs [][]float32) replay.Exchange {
		body, _ := json.Marshal(map[string]any{"model": "embeddinggemma", "embeddings": vecs})
		return replay.Exchange{Header: jsonHeader(), Body: body}
	},
	Fail: func(status int, message string) replay.Exchange {
		return replay.Exchange{Status: status, Header: jsonHeader(), Body: fmt.Appendf(nil, `{"error":%q}`, message)}
	},
	RecordsWaits: true,
}

func TestEmbedderMalformedResponses(t *testing.T) {
	bad := func(name, body, want string) providertest.BadAnswer {
		return providertest.BadAnswer{Name: name, Answer: replay.Exchange{Header: jsonHeader(), Body: []byte(body)}, Want: want}
	}
	embedTarget.TestBadAnswers(t,
		bad("not JSON, cut in a vector", `{"model":"m","embeddings":[[0.1`, "ollama: unexpected end of JSON input"),
		bad("wrong type", `{"model":"m","embeddings":"AAAA"}`, "ollama: json: cannot unmarshal"),
		bad("empty body, no embeddings", ``, "0 embeddings for 2 inputs"),
		bad("no embeddings", `{"model":"m"}`, "0 embeddings for 2 inputs"),
	)
}

func TestEmbedderFaults(t *testing.T) {
	embedTarget.TestFaults(t)
	t.Run("429 asking for 3s then 200", func(t *testing.T) {
		embedTarget.Retried(t, replay.Exchange{Status: 429, Header: http.Header{"Retry-After": {"3"}}, Body: []byte(`{"error":"too many requests"}`)}, 3*time.Second)
	})
	t.Run("500 without body", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Exchange{Status: 500})
		e := newTestEmbedder(t, srv.URL, EmbedderConfig{Transport: provider.Transport{MaxRetries: -1}})
		_, err := e.Embed(context.Background(), []string{"a"})
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 500 || pe.Message != "Internal Server Error" {
			t.Fatalf("error = %#v", err)
		}
	})
	t.Run("model not found is not retried", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Exchange{Status: 404, Header: jsonHeader(), Body: []byte(`{"error":"model \"nomic\" not found, try pulling it first"}`)})
		e := newTestEmbedder(t, srv.URL, EmbedderConfig{Model: "nomic"})
		_, err := e.Embed(context.Background(), []string{"a"})
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 404 || !strings.Contains(pe.Message, "try pulling it") || srv.Served() != 1 {
			t.Fatalf("error = %v after %d requests", err, srv.Served())
		}
	})
	t.Run("unauthorized", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Exchange{Status: 401, Header: jsonHeader(), Body: []byte(`{"error":"unauthorized","signin_url":"https://ollama.com/connect"}`)})
		e := newTestEmbedder(t, srv.URL, EmbedderConfig{})
		_, err := e.Embed(context.Background(), []string{"a"})
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 401 || !strings.Contains(pe.Message, "ollama.com/connect") {
			t.Fatalf("error = %v", err)
		}
	})
}

func TestEmbedderCancel(t *testing.T) { embedTarget.TestCancel(t) }

// TestEmbedderVectorIndex: a toolsearch.VectorIndex on the Embedder, with nomic-embed-text's
// document and query prefixes on two embedders, finds the tool each query is about.
func TestEmbedderVectorIndex(t *testing.T) {
	srv := newFakeOllamaEmbed(t)
	docs := newTestEmbedder(t, srv.URL, EmbedderConfig{Model: "nomic-embed-text", Prefix: "search_document: ", BatchSize: 2})
	queries := newTestEmbedder(t, srv.URL, EmbedderConfig{Model: "nomic-embed-text", Prefix: "search_query: "})
	providertest.EmbedderSearch(t, docs, queries)
	inputs, _ := srv.requests()
	var documents, searches int
	for _, in := range inputs {
		for _, text := range in {
			switch {
			case strings.HasPrefix(text, "search_document: "):
				documents++
			case strings.HasPrefix(text, "search_query: "):
				searches++
			}
		}
	}
	if documents != len(providertest.SearchCatalog) || searches != len(providertest.SearchQueries) || len(inputs) != (len(providertest.SearchCatalog)+1)/2+len(providertest.SearchQueries) {
		t.Errorf("%d documents and %d queries embedded in %d requests", documents, searches, len(inputs))
	}
}
