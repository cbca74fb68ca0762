package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/toolsearch"
)

// embedSchemas returns validators for BatchEmbedContentsRequest and BatchEmbedContentsResponse
// from the excerpt of Google's OpenAPI export in testdata. The API rejects fields it does not
// know, so every object is closed (additionalProperties false), which the export leaves implicit.
func embedSchemas(t testing.TB) (request, response *jsonschema.Resolved) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "embed", "gemini-v1beta-embed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var closeObjects func(v any)
	closeObjects = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["properties"]; ok && x["type"] == "object" {
				x["additionalProperties"] = false
			}
			if ref, ok := x["$ref"].(string); ok {
				x["$ref"] = strings.Replace(ref, "#/components/schemas/", "#/$defs/", 1)
			}
			for _, y := range x {
				closeObjects(y)
			}
		case []any:
			for _, y := range x {
				closeObjects(y)
			}
		}
	}
	closeObjects(doc.Components.Schemas)
	resolve := func(name string) *jsonschema.Resolved {
		b, err := json.Marshal(map[string]any{"$ref": "#/$defs/" + name, "$defs": doc.Components.Schemas})
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	return resolve("BatchEmbedContentsRequest"), resolve("BatchEmbedContentsResponse")
}

// batchRequest is what the fake server reads of a BatchEmbedContentsRequest.
type batchRequest struct {
	Requests []struct {
		Model   string `json:"model"`
		Content struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"content"`
		TaskType             string `json:"taskType"`
		OutputDimensionality int    `json:"outputDimensionality"`
		Title                string `json:"title"`
	} `json:"requests"`
}

// fakeGeminiEmbed is the Gemini API's batchEmbedContents on 127.0.0.1. It checks each request
// against the API's schema and answers in the shape of BatchEmbedContentsResponse (checked too),
// with vectors computed from each text's words by toolsearch's HashingEmbedder.
type fakeGeminiEmbed struct {
	URL      string
	t        testing.TB
	req, res *jsonschema.Resolved
	mu       sync.Mutex
	got      []batchRequest
	paths    []string
	keys     []string
}

func newFakeGeminiEmbed(t testing.TB) *fakeGeminiEmbed {
	f := &fakeGeminiEmbed{t: t}
	f.req, f.res = embedSchemas(t)
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *fakeGeminiEmbed) serve(w http.ResponseWriter, r *http.Request) {
	fail := func(msg string) {
		f.t.Errorf("fake Gemini: %s", msg)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"message":%q,"status":"INVALID_ARGUMENT"}}`, msg)
	}
	model, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":batchEmbedContents")
	if r.Method != http.MethodPost || !ok || strings.Contains(model, "/") {
		fail("unexpected " + r.Method + " " + r.URL.Path)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var instance any
	if err := json.Unmarshal(body, &instance); err != nil {
		fail(err.Error())
		return
	}
	if err := f.req.Validate(instance); err != nil {
		fail(fmt.Sprintf("request breaks BatchEmbedContentsRequest: %v: %s", err, body))
		return
	}
	var req batchRequest
	_ = json.Unmarshal(body, &req)
	texts := make([]string, len(req.Requests))
	for i, q := range req.Requests {
		// Required by the API even though the spec's schema leaves it optional; the model of
		// each request must be the batch's.
		if q.Model != "models/"+model || len(q.Content.Parts) != 1 {
			fail(fmt.Sprintf("request %d: model %q in a batch for %q, %d parts", i, q.Model, model, len(q.Content.Parts)))
			return
		}
		texts[i] = q.Content.Parts[0].Text
	}
	if len(texts) > 100 {
		fail("at most 100 requests can be in one batch")
		return
	}
	f.mu.Lock()
	f.got = append(f.got, req)
	f.paths = append(f.paths, r.URL.Path)
	f.keys = append(f.keys, r.Header.Get("X-Goog-Api-Key"))
	f.mu.Unlock()
	dim := 0
	if len(req.Requests) > 0 {
		dim = req.Requests[0].OutputDimensionality
	}
	vecs, _ := (&toolsearch.HashingEmbedder{Dim: dim}).Embed(r.Context(), texts)
	embeddings := make([]any, len(vecs))
	for i, v := range vecs {
		embeddings[i] = map[string]any{"values": v}
	}
	out, _ := json.Marshal(map[string]any{"embeddings": embeddings})
	var answer any
	_ = json.Unmarshal(out, &answer)
	if err := f.res.Validate(answer); err != nil {
		fail(fmt.Sprintf("answer breaks BatchEmbedContentsResponse: %v", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

func (f *fakeGeminiEmbed) requests() []batchRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// newTestEmbedder returns an Embedder on url whose retry waits are recorded (in a Waits of its
// own unless cfg has one) instead of taken.
func newTestEmbedder(t testing.TB, url string, cfg EmbedderConfig) *Embedder {
	t.Helper()
	cfg.BaseURL = url
	if cfg.APIKey == "" {
		cfg.APIKey = "test-key"
	}
	if cfg.sleep == nil {
		cfg.sleep = (&providertest.Waits{}).Sleep
	}
	e, err := NewEmbedder(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedderBatches(t *testing.T) {
	srv := newFakeGeminiEmbed(t)
	e := newTestEmbedder(t, srv.URL, EmbedderConfig{})
	texts := make([]string, 205)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool %d reads the weather of city %d", i, i%7)
	}
	providertest.EmbedHashed(t, e, 0, "", texts...)
	reqs := srv.requests()
	var sizes []int
	for _, r := range reqs {
		sizes = append(sizes, len(r.Requests))
		for _, q := range r.Requests {
			if q.TaskType != "" || q.OutputDimensionality != 0 || q.Model != "models/"+DefaultEmbeddingModel {
				t.Fatalf("request %+v", q)
			}
		}
	}
	if !slices.Equal(sizes, []int{100, 100, 5}) || srv.paths[0] != "/v1beta/models/gemini-embedding-001:batchEmbedContents" || srv.keys[0] != "test-key" {
		t.Errorf("batches of %v to %s with key %q", sizes, srv.paths[0], srv.keys[0])
	}
	if got, err := e.Embed(context.Background(), nil); err != nil || len(got) != 0 || len(srv.requests()) != 3 {
		t.Errorf("no texts: %v, %v", got, err)
	}
}

func TestEmbedderSettings(t *testing.T) {
	srv := newFakeGeminiEmbed(t)
	t.Setenv("GEMINI_API_KEY", "env-key")
	e, err := NewEmbedder(context.Background(), EmbedderConfig{BaseURL: srv.URL, Model: "text-embedding-004",
		TaskType: TaskRetrievalDocument, Dimensions: 768, BatchSize: 2,
		Configure: func(c *genai.EmbedContentConfig) { c.Title = "tool catalog" }})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "text-embedding-004" || e.TaskType() != TaskRetrievalDocument || e.Client() == nil {
		t.Errorf("Model %q, TaskType %q", e.Model(), e.TaskType())
	}
	providertest.EmbedHashed(t, e, 768, "", "a", "b", "c")
	reqs := srv.requests()
	q := reqs[0].Requests[0]
	if len(reqs) != 2 || q.TaskType != "RETRIEVAL_DOCUMENT" || q.OutputDimensionality != 768 || q.Title != "tool catalog" ||
		q.Model != "models/text-embedding-004" || srv.keys[0] != "env-key" {
		t.Errorf("%d requests, first %+v, key %q", len(reqs), q, srv.keys[0])
	}

	for _, cfg := range []EmbedderConfig{{Dimensions: -1}, {BatchSize: -1}, {Dimensions: 1 << 40}} {
		cfg.APIKey = "k"
		if _, err := NewEmbedder(context.Background(), cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	if _, err := NewEmbedder(context.Background(), EmbedderConfig{}); err == nil {
		t.Error("no API key accepted")
	}
	if _, err := NewEmbedderWithClient(nil, EmbedderConfig{}); err == nil {
		t.Error("nil client accepted")
	}
	w, err := NewEmbedderWithClient(e.Client(), EmbedderConfig{TaskType: TaskRetrievalQuery})
	if err != nil || w.Model() != DefaultEmbeddingModel {
		t.Fatalf("NewEmbedderWithClient: %v", err)
	}
	if _, err := w.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if q := srv.requests()[2].Requests[0]; q.TaskType != "RETRIEVAL_QUERY" {
		t.Errorf("query embedder sent %+v", q)
	}
}

// TestEmbedderVertexBatches: Vertex AI takes one text per request for its Gemini embedding
// models and 250 for the others.
func TestEmbedderVertexBatches(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Instances []map[string]any `json:"instances"`
			Content   map[string]any   `json:"content"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		n := len(body.Instances)
		mu.Lock()
		calls = append(calls, r.URL.Path[strings.LastIndex(r.URL.Path, ":")+1:])
		sizes = append(sizes, n)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, ":embedContent") {
			fmt.Fprint(w, `{"embedding":{"values":[0.5,0.5]},"usageMetadata":{"promptTokenCount":3}}`)
			return
		}
		preds := make([]string, n)
		for i := range preds {
			preds[i] = `{"embeddings":{"values":[0.5,0.5],"statistics":{"truncated":false,"token_count":3}}}`
		}
		fmt.Fprintf(w, `{"predictions":[%s]}`, strings.Join(preds, ","))
	}))
	defer srv.Close()
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = "a short text"
	}
	for _, tt := range []struct {
		model string
		n     int
		calls []string
		sizes []int
	}{
		{"text-embedding-005", 300, []string{"predict", "predict"}, []int{250, 50}},
		{"gemini-embedding-001", 2, []string{"predict", "predict"}, []int{1, 1}},
		{"gemini-embedding-2-preview", 2, []string{"embedContent", "embedContent"}, []int{0, 0}},
	} {
		calls, sizes = nil, nil
		e := newTestEmbedder(t, srv.URL, EmbedderConfig{Model: tt.model,
			ClientConfig: &genai.ClientConfig{Backend: genai.BackendVertexAI, APIKey: "vertex-express-key"}})
		got, err := e.Embed(context.Background(), texts[:tt.n])
		if err != nil || len(got) != tt.n {
			t.Fatalf("%s: %d vectors, %v", tt.model, len(got), err)
		}
		if !slices.Equal(calls, tt.calls) || !slices.Equal(sizes, tt.sizes) {
			t.Errorf("%s: calls %v of %v texts, want %v of %v", tt.model, calls, sizes, tt.calls, tt.sizes)
		}
	}
}

// embedTarget is the Embedder under providertest's shared fault checks.
var embedTarget = providertest.EmbedTarget{
	Provider: providerName,
	New: func(t testing.TB, url string, o providertest.EmbedOptions) toolsearch.Embedder {
		return newTestEmbedder(t, url, EmbedderConfig{Dimensions: o.Dimensions, BatchSize: o.BatchSize, Transport: provider.Transport{MaxRetries: o.MaxRetries()}, sleep: o.Waits.Sleep})
	},
	Answer: func(vecs [][]float32) replay.Exchange {
		embeddings := make([]map[string][]float32, len(vecs))
		for i, v := range vecs {
			embeddings[i] = map[string][]float32{"values": v}
		}
		body, _ := json.Marshal(map[string]any{"embeddings": embeddings})
		return replay.Exchange{Header: jsonHeader(), Body: body}
	},
	Fail: func(status int, message string) replay.Exchange {
		return replay.Exchange{Status: status, Header: jsonHeader(), Body: geminiError(status, errorStatus(status), message)}
	},
	ErrorType:    errorStatus,
	RecordsWaits: true,
}

// errorStatus is the status the Gemini API names its errors of an HTTP status by.
func errorStatus(code int) string {
	switch code {
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "INVALID_ARGUMENT"
}

func TestEmbedderMalformedResponses(t *testing.T) {
	bad := func(name, body, want string) providertest.BadAnswer {
		return providertest.BadAnswer{Name: name, Answer: replay.Exchange{Header: jsonHeader(), Body: []byte(body)}, Want: want}
	}
	embedTarget.TestBadAnswers(t,
		bad("not an object", `[1,2]`, ""),
		bad("values not numbers", `{"embeddings":[{"values":"AAAA"},{"values":[0.1]}]}`, ""),
		bad("embeddings not a list", `{"embeddings":{"values":[0.1]}}`, ""),
		bad("no embeddings", `{}`, "0 embeddings for 2 inputs"),
		bad("null embedding", `{"embeddings":[{"values":[0.1]},null]}`, "empty embedding for input 1"),
		bad("no values", `{"embeddings":[{"values":[0.1]},{}]}`, "empty embedding for input 1"),
	)
}

func TestEmbedderFaults(t *testing.T) {
	embedTarget.TestFaults(t)
	t.Run("429 asking for 1.5s in the body then 200", func(t *testing.T) {
		limited := replay.Exchange{Status: 429, Header: jsonHeader(), Body: []byte(`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}`)}
		embedTarget.Retried(t, limited, 1500*time.Millisecond)
	})
}

func TestEmbedderCancel(t *testing.T) { embedTarget.TestCancel(t) }

// TestEmbedderVectorIndex: a toolsearch.VectorIndex with the tools embedded as
// RETRIEVAL_DOCUMENT and the searches as RETRIEVAL_QUERY finds the tool each query is about.
func TestEmbedderVectorIndex(t *testing.T) {
	srv := newFakeGeminiEmbed(t)
	docs := newTestEmbedder(t, srv.URL, EmbedderConfig{TaskType: TaskRetrievalDocument, Dimensions: 768})
	queries := newTestEmbedder(t, srv.URL, EmbedderConfig{TaskType: TaskRetrievalQuery, Dimensions: 768})
	providertest.EmbedderSearch(t, docs, queries)
	tasks := map[string][]string{}
	for _, r := range srv.requests() {
		for _, q := range r.Requests {
			tasks[q.TaskType] = append(tasks[q.TaskType], q.Content.Parts[0].Text)
		}
	}
	if len(tasks) != 2 || len(tasks[TaskRetrievalDocument]) != len(providertest.SearchCatalog) || len(tasks[TaskRetrievalQuery]) != len(providertest.SearchQueries) ||
		!strings.HasPrefix(tasks[TaskRetrievalDocument][0], "book_flight\n") {
		t.Errorf("texts by task type: %q", tasks)
	}
}

// TestEmbedSchemasBite: the schema check of the fake server rejects what the API would.
func TestEmbedSchemasBite(t *testing.T) {
	req, res := embedSchemas(t)
	valid := `{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}],"role":"user"},"taskType":"RETRIEVAL_QUERY","outputDimensionality":8}]}`
	for _, body := range []string{
		`{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}]},"taskType":"NOPE"}]}`,
		`{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}]},"task_type":"RETRIEVAL_QUERY"}]}`,
		`{"requests":[{"model":"models/m"}]}`,
		`{"requests":[{"model":"models/m","content":{"parts":[{"text":1}]}}]}`,
		`{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}]},"outputDimensionality":"8"}]}`,
		`{}`,
	} {
		var v any
		_ = json.Unmarshal([]byte(body), &v)
		if req.Validate(v) == nil {
			t.Errorf("accepted %s", body)
		}
	}
	var v any
	_ = json.Unmarshal([]byte(valid), &v)
	if err := req.Validate(v); err != nil {
		t.Errorf("rejected %s: %v", valid, err)
	}
	_ = json.Unmarshal([]byte(`{"embeddings":[{"value":[1]}]}`), &v)
	if res.Validate(v) == nil {
		t.Error("response schema accepted value for values")
	}
}
