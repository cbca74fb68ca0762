package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/toolsearch"
)

// embeddingsRequest is CreateEmbeddingRequest of OpenAI's OpenAPI spec, as this package sends it
// (input as an array of strings). The spec closes the object (additionalProperties: false), so
// the fake server rejects unknown fields too.
type embeddingsRequest struct {
	Input          []string `json:"input"`
	Model          string   `json:"model"`
	Dimensions     *int     `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format,omitempty"`
	User           string   `json:"user,omitempty"`
}

// fakeEmbeddings is an Embeddings API on 127.0.0.1 whose vectors are computed from the text by
// toolsearch's HashingEmbedder (texts sharing words get similar vectors), answered in the shape
// of the spec's CreateEmbeddingResponse, with the items in reverse order: only their index says
// which input each belongs to.
type fakeEmbeddings struct {
	URL string
	mu  sync.Mutex
	req []embeddingsRequest
	hdr []http.Header
}

func newFakeEmbeddings(t testing.TB) *fakeEmbeddings {
	f := &fakeEmbeddings{}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL + "/v1"
	return f
}

func (f *fakeEmbeddings) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req embeddingsRequest
	if err := dec.Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 || len(req.Input) > 2048 {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, fmt.Sprint("bad request: ", err))
		return
	}
	f.mu.Lock()
	f.req = append(f.req, req)
	f.hdr = append(f.hdr, r.Header.Clone())
	f.mu.Unlock()
	dim := 0
	if req.Dimensions != nil {
		dim = *req.Dimensions
	}
	vecs, _ := (&toolsearch.HashingEmbedder{Dim: dim}).Embed(r.Context(), req.Input)
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		var emb any = v
		if req.EncodingFormat == "base64" {
			raw := make([]byte, 0, 4*len(v))
			for _, x := range v {
				raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(raw)
		}
		data[len(vecs)-1-i] = item{Object: "embedding", Index: i, Embedding: emb}
	}
	tokens := 0
	for _, in := range req.Input {
		tokens += len(strings.Fields(in))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

func (f *fakeEmbeddings) requests() []embeddingsRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.req)
}

func newTestEmbedder(t testing.TB, cfg EmbedderConfig) *Embedder {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test"
	}
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedderBatchesInOrder(t *testing.T) {
	srv := newFakeEmbeddings(t)
	e := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, BatchSize: 3})
	texts := []string{"weather in a city", "stock price", "send an email", "translate text", "book a flight", "search the web", "convert currency"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if !providertest.EqualVectors(got, providertest.Hashed(t, 0, texts...)) {
		t.Error("vectors do not match their texts")
	}
	reqs := srv.requests()
	var sizes []int
	for _, r := range reqs {
		sizes = append(sizes, len(r.Input))
		if r.Model != DefaultEmbeddingModel || r.Dimensions != nil || r.EncodingFormat != "" {
			t.Errorf("request %+v", r)
		}
	}
	if !slices.Equal(sizes, []int{3, 3, 1}) || !slices.Equal(reqs[2].Input, texts[6:]) {
		t.Errorf("batches of %v, want 3, 3, 1 in order", sizes)
	}
	if auth := srv.hdr[0].Get("Authorization"); auth != "Bearer sk-test" {
		t.Errorf("Authorization %q", auth)
	}

	// No texts, no request.
	got, err = e.Embed(context.Background(), nil)
	if err != nil || len(got) != 0 || len(srv.requests()) != 3 {
		t.Errorf("no texts: %v, %v after %d requests", got, err, len(srv.requests()))
	}
}

// toServer sends every request to srv, whatever host it names, as a proxy in front of
// api.openai.com would.
type toServer struct {
	url  string
	next http.RoundTripper // nil means http.DefaultTransport
}

func (s toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	u, err := url.Parse(s.url)
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, u.Host
	r.URL.Path = u.Path + strings.TrimPrefix(r.URL.Path, "/v1")
	if s.next == nil {
		return http.DefaultTransport.RoundTrip(r)
	}
	return s.next.RoundTrip(r)
}

// TestEmbedderBase64: OpenAI's own API is asked for base64 vectors, a quarter of the size of
// decimal ones and exact; other servers for their default, floats. Either answer is read.
func TestEmbedderBase64(t *testing.T) {
	srv := newFakeEmbeddings(t)
	e := newTestEmbedder(t, EmbedderConfig{BaseURL: DefaultBaseURL, HTTPClient: &http.Client{Transport: toServer{url: srv.URL}}})
	texts := []string{"weather in a city", "stock price"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if r := srv.requests(); r[0].EncodingFormat != "base64" || !providertest.EqualVectors(got, providertest.Hashed(t, 0, texts...)) {
		t.Errorf("encoding_format %q, vectors equal: %v", r[0].EncodingFormat, providertest.EqualVectors(got, providertest.Hashed(t, 0, texts...)))
	}

	// A server may answer base64 unasked, or mix both.
	mixed := replay.NewServer(t, embeddingsBody(`{"object":"embedding","index":1,"embedding":"zczMPQAAgD8="}`, `{"object":"embedding","index":0,"embedding":[0.5,-1]}`))
	got, err = newTestEmbedder(t, EmbedderConfig{BaseURL: mixed.URL}).Embed(context.Background(), []string{"a", "b"})
	if err != nil || !providertest.EqualVectors(got, [][]float32{{0.5, -1}, {0.1, 1}}) {
		t.Errorf("Embed = %v, %v", got, err)
	}
	if body := string(mixed.Requests()[0].Body); strings.Contains(body, "encoding_format") {
		t.Errorf("a compatible server was asked for an encoding: %s", body)
	}
}

// TestEmbedderTokenLimit: a request carries at most 300,000 bytes of text, so never more than
// the API's 300,000 tokens; a text over the limit goes alone.
func TestEmbedderTokenLimit(t *testing.T) {
	srv := newFakeEmbeddings(t)
	e := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL})
	long := strings.Repeat("word ", 20_000) // 100,000 bytes
	texts := []string{long + "a", long + "b", long + "c", "short", strings.Repeat("huge ", 70_000)}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors", len(got))
	}
	var sizes []int
	for _, r := range srv.requests() {
		n := 0
		for _, in := range r.Input {
			n += len(in)
		}
		sizes = append(sizes, len(r.Input))
		if n > maxEmbeddingBytes && len(r.Input) > 1 {
			t.Errorf("a request of %d bytes in %d texts", n, len(r.Input))
		}
	}
	if !slices.Equal(sizes, []int{2, 2, 1}) {
		t.Errorf("batches of %v, want 2, 2, 1", sizes)
	}
}

func TestEmbedderSettings(t *testing.T) {
	srv := newFakeEmbeddings(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "sk-env")
	e, err := NewEmbedder(EmbedderConfig{Model: "nomic-embed-text", Dimensions: 32, Prefix: "search_query: "})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "nomic-embed-text" {
		t.Errorf("Model() = %q", e.Model())
	}
	got, err := e.Embed(context.Background(), []string{"weather"})
	if err != nil {
		t.Fatal(err)
	}
	r := srv.requests()[0]
	if r.Model != "nomic-embed-text" || r.Dimensions == nil || *r.Dimensions != 32 || !slices.Equal(r.Input, []string{"search_query: weather"}) {
		t.Errorf("request %+v", r)
	}
	if !providertest.EqualVectors(got, providertest.Hashed(t, 32, "search_query: weather")) {
		t.Errorf("vector %v", got)
	}
	if auth := srv.hdr[0].Get("Authorization"); auth != "Bearer sk-env" {
		t.Errorf("Authorization %q", auth)
	}

	for _, cfg := range []EmbedderConfig{{Dimensions: -1}, {BatchSize: -2}, {BaseURL: "ftp://example.com"}, {MaxRetries: ptr(-1)}} {
		if _, err := NewEmbedder(cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
}

// embeddingsBody is a CreateEmbeddingResponse with the given data items.
func embeddingsBody(items ...string) replay.Exchange {
	body := `{"object":"list","model":"text-embedding-3-small","usage":{"prompt_tokens":2,"total_tokens":2},"data":[` + strings.Join(items, ",") + `]}`
	return providertest.JSONError(200, body)
}

// TestEmbedderMalformedResponses: answers that are not one vector per input fail the call with
// an error saying what is wrong, never a panic or a wrong vector.
func TestEmbedderMalformedResponses(t *testing.T) {
	item := func(i int, emb string) string {
		return fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, emb)
	}
	tests := []struct {
		name string
		ex   replay.Exchange
		dims int
		want string
	}{
		{"not JSON", providertest.JSONError(200, `{"object":"list","data":[{"index":0,`), 0, "openai"},
		{"not an object", providertest.JSONError(200, `[1,2]`), 0, "openai"},
		{"empty body", providertest.JSONError(200, ``), 0, "openai"},
		{"too few", embeddingsBody(item(0, "[0.1,0.2]")), 0, "1 embeddings for 2 inputs"},
		{"too many", embeddingsBody(item(0, "[0.1]"), item(1, "[0.2]"), item(2, "[0.3]")), 0, "3 embeddings for 2 inputs"},
		{"duplicate index", embeddingsBody(item(0, "[0.1]"), item(0, "[0.2]")), 0, "two embeddings for input 0"},
		{"index out of range", embeddingsBody(item(0, "[0.1]"), item(2, "[0.2]")), 0, "index 2, but the request had 2"},
		{"negative index", embeddingsBody(item(0, "[0.1]"), item(-1, "[0.2]")), 0, "index -1"},
		{"no index", embeddingsBody(item(0, "[0.1]"), `{"object":"embedding","embedding":[0.2]}`), 0, "an embedding without an index"},
		{"index not a number", embeddingsBody(item(0, "[0.1]"), `{"object":"embedding","index":"1","embedding":[0.2]}`), 0, "cannot unmarshal string"},
		{"fractional index", embeddingsBody(item(0, "[0.1]"), `{"object":"embedding","index":0.5,"embedding":[0.2]}`), 0, "cannot unmarshal number 0.5"},
		{"numbers as text", embeddingsBody(item(0, "[0.1]"), item(1, `["a","b"]`)), 0, "cannot unmarshal string"},
		{"number out of range", embeddingsBody(item(0, "[0.1]"), item(1, `[1e40]`)), 0, "cannot unmarshal number 1e40"},
		{"not base64", embeddingsBody(item(0, "[0.1]"), item(1, `"zczMPQ!="`)), 0, "base64 embedding: illegal base64"},
		{"base64 not float32s", embeddingsBody(item(0, "[0.1]"), item(1, `"zczM"`)), 0, "3 bytes, not a whole number of float32s"},
		{"base64 NaN", embeddingsBody(item(0, "[0.1]"), item(1, `"AADAfw=="`)), 0, "NaN or infinite value in the embedding for input 1"},
		{"null embedding", embeddingsBody(item(0, "[0.1]"), item(1, `null`)), 0, "empty embedding for input 1"},
		{"empty embedding", embeddingsBody(item(0, "[0.1]"), item(1, `[]`)), 0, "empty embedding for input 1"},
		{"mixed dimensions", embeddingsBody(item(0, "[0.1]"), item(1, `[0.2,0.3]`)), 0, "1 and 2 dimensions"},
		{"dimensions not honoured", embeddingsBody(item(0, "[0.1,0.2,0.3]"), item(1, `[0.2,0.3,0.4]`)), 2, "3 dimensions for input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, tt.ex)
			e := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, Dimensions: tt.dims, MaxRetries: ptr(0)})
			got, err := e.Embed(context.Background(), []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tt.want) || got != nil {
				t.Fatalf("Embed = %v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

func TestEmbedderFaults(t *testing.T) {
	ok := embeddingsBody(`{"object":"embedding","index":0,"embedding":[0.5,0.25]}`)
	fast := []option.RequestOption{option.WithMaxRetryDelay(5 * time.Millisecond)}

	t.Run("429 then 200", func(t *testing.T) {
		limited := providertest.JSONError(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "0")
		srv := replay.NewServer(t, limited, ok)
		got, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL}).Embed(context.Background(), []string{"a"})
		if err != nil || !providertest.EqualVectors(got, [][]float32{{0.5, 0.25}}) || srv.Served() != 2 {
			t.Fatalf("Embed = %v, %v after %d requests", got, err, srv.Served())
		}
		// The retried request is the same request.
		reqs := srv.Requests()
		if !bytes.Equal(reqs[0].Body, reqs[1].Body) {
			t.Errorf("retry sent %s, first %s", reqs[1].Body, reqs[0].Body)
		}
	})
	t.Run("500 until retries run out", func(t *testing.T) {
		failing := providertest.JSONError(500, `{"error":{"message":"The server had an error","type":"server_error"}}`)
		srv := replay.NewServer(t, failing, failing, failing)
		_, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, RequestOptions: fast}).Embed(context.Background(), []string{"a"})
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 500 || pe.Type != "server_error" || pe.Provider != Provider || !pe.Temporary() || srv.Served() != 3 {
			t.Fatalf("error = %v after %d requests", err, srv.Served())
		}
	})
	t.Run("500 then 200", func(t *testing.T) {
		srv := replay.NewServer(t, providertest.JSONError(500, `Internal Server Error`), ok)
		got, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, RequestOptions: fast}).Embed(context.Background(), []string{"a"})
		if err != nil || len(got) != 1 || srv.Served() != 2 {
			t.Fatalf("Embed = %v, %v after %d requests", got, err, srv.Served())
		}
	})
	t.Run("400 is not retried", func(t *testing.T) {
		bad := providertest.JSONError(400, `{"error":{"message":"'$.input' is invalid.","type":"invalid_request_error","param":null,"code":null}}`)
		srv := replay.NewServer(t, bad)
		_, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL}).Embed(context.Background(), []string{""})
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 400 || pe.Message != "'$.input' is invalid." || pe.Temporary() || srv.Served() != 1 {
			t.Fatalf("error = %#v after %d requests", err, srv.Served())
		}
	})
	t.Run("compatible server's error text", func(t *testing.T) {
		srv := replay.NewServer(t, providertest.JSONError(404, `{"error":"model \"nomic\" not found, try pulling it first"}`))
		_, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, Model: "nomic"}).Embed(context.Background(), []string{"a"})
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 404 || !strings.Contains(pe.Message, "not found") {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("body cut short", func(t *testing.T) {
		cut := ok
		cut.CutAfter = 40
		srv := replay.NewServer(t, cut)
		if _, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, MaxRetries: ptr(0)}).Embed(context.Background(), []string{"a"}); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("a later batch fails", func(t *testing.T) {
		srv := replay.NewServer(t, ok, providertest.JSONError(400, `{"error":{"message":"too long"}}`))
		got, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, BatchSize: 1}).Embed(context.Background(), []string{"a", "b"})
		var pe *chat.ProviderError
		if got != nil || !errors.As(err, &pe) || pe.Message != "too long" {
			t.Fatalf("Embed = %v, %v", got, err)
		}
	})
}

func TestEmbedderCancel(t *testing.T) {
	srv := newFakeEmbeddings(t)
	e := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) || len(srv.requests()) != 0 {
		t.Fatalf("cancelled context: %v, %d requests", err, len(srv.requests()))
	}

	// Cancelled while the server is thinking.
	arrived := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server notices the client leaving only after the body
		close(arrived)
		<-r.Context().Done()
	}))
	defer slow.Close()
	e = newTestEmbedder(t, EmbedderConfig{BaseURL: slow.URL})
	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	if _, err := e.Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled mid-request: %v", err)
	}
}

// TestEmbedderVectorIndex: a toolsearch.VectorIndex on the Embedder, over a catalog embedded by
// the fake API in batches, finds the tool each query is about, every search one request.
func TestEmbedderVectorIndex(t *testing.T) {
	srv := newFakeEmbeddings(t)
	e := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, BatchSize: 2})
	providertest.EmbedderSearch(t, e, nil)
	var indexing, searches int
	for _, r := range srv.requests() {
		if _, ok := providertest.SearchQueries[r.Input[0]]; ok && len(r.Input) == 1 {
			searches++
		} else {
			indexing++
		}
	}
	if indexing != (len(providertest.SearchCatalog)+1)/2 || searches != len(providertest.SearchQueries) {
		t.Errorf("%d indexing requests for %d tools in batches of 2, %d requests for %d searches",
			indexing, len(providertest.SearchCatalog), searches, len(providertest.SearchQueries))
	}
}
