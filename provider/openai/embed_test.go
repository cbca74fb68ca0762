package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/wield-ai/wield/provider"
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
	providertest.EmbedHashed(t, e, 0, "", texts...)
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
	got, err := e.Embed(context.Background(), nil)
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
	e := newTestEmbedder(t, EmbedderConfig{BaseURL: DefaultBaseURL, Transport: provider.Transport{HTTPClient: &http.Client{Transport: toServer{url: srv.URL}}}})
	providertest.EmbedHashed(t, e, 0, "", "weather in a city", "stock price")
	if r := srv.requests(); r[0].EncodingFormat != "base64" {
		t.Errorf("encoding_format %q", r[0].EncodingFormat)
	}

	// A server may answer base64 unasked, or mix both.
	mixed := replay.NewServer(t, embeddingsBody(`{"object":"embedding","index":1,"embedding":"zczMPQAAgD8="}`, `{"object":"embedding","index":0,"embedding":[0.5,-1]}`))
	got, err := newTestEmbedder(t, EmbedderConfig{BaseURL: mixed.URL}).Embed(context.Background(), []string{"a", "b"})
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
	providertest.EmbedHashed(t, e, 32, "search_query: ", "weather")
	r := srv.requests()[0]
	if r.Model != "nomic-embed-text" || r.Dimensions == nil || *r.Dimensions != 32 || !slices.Equal(r.Input, []string{"search_query: weather"}) {
		t.Errorf("request %+v", r)
	}
	if auth := srv.hdr[0].Get("Authorization"); auth != "Bearer sk-env" {
		t.Errorf("Authorization %q", auth)
	}

	for _, cfg := range []EmbedderConfig{{Dimensions: -1}, {BatchSize: -2}, {BaseURL: "ftp://example.com"}} {
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

// embedTarget is the Embedder under providertest's shared fault checks.
var embedTarget = providertest.EmbedTarget{
	Provider: Provider,
	New: func(t testing.TB, url string, o providertest.EmbedOptions) toolsearch.Embedder {
		cfg := EmbedderConfig{BaseURL: url, Dimensions: o.Dimensions, BatchSize: o.BatchSize,
			RequestOptions: []option.RequestOption{option.WithMaxRetryDelay(5 * time.Millisecond)}}
		if o.NoRetries {
			cfg.MaxRetries = -1
		}
		return newTestEmbedder(t, cfg)
	},
	Answer: func(vecs [][]float32) replay.Exchange {
		items := make([]string, len(vecs))
		for i, v := range vecs {
			emb, _ := json.Marshal(v)
			items[i] = embeddingItem(i, string(emb))
		}
		return embeddingsBody(items...)
	},
	Fail: func(status int, message string) replay.Exchange {
		return providertest.JSONError(status, fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":null}}`, message, errorType(status)))
	},
	ErrorType: errorType,
}

// errorType is the type OpenAI gives its errors of a status.
func errorType(status int) string {
	switch {
	case status >= 500:
		return "server_error"
	case status == http.StatusTooManyRequests:
		return "requests"
	}
	return "invalid_request_error"
}

func embeddingItem(i int, emb string) string {
	return fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, emb)
}

// TestEmbedderMalformedResponses: answers that are not one vector per input fail the call with
// an error saying what is wrong, never a panic or a wrong vector.
func TestEmbedderMalformedResponses(t *testing.T) {
	item := embeddingItem
	bad := func(name string, ex replay.Exchange, want string) providertest.BadAnswer {
		return providertest.BadAnswer{Name: name, Answer: ex, Want: want}
	}
	embedTarget.TestBadAnswers(t,
		bad("not an object", providertest.JSONError(200, `[1,2]`), ""),
		bad("duplicate index", embeddingsBody(item(0, "[0.1]"), item(0, "[0.2]")), "two embeddings for input 0"),
		bad("index out of range", embeddingsBody(item(0, "[0.1]"), item(2, "[0.2]")), "index 2, but the request had 2"),
		bad("negative index", embeddingsBody(item(0, "[0.1]"), item(-1, "[0.2]")), "index -1"),
		bad("no index", embeddingsBody(item(0, "[0.1]"), `{"object":"embedding","embedding":[0.2]}`), "an embedding without an index"),
		bad("index not a number", embeddingsBody(item(0, "[0.1]"), `{"object":"embedding","index":"1","embedding":[0.2]}`), "cannot unmarshal string"),
		bad("fractional index", embeddingsBody(item(0, "[0.1]"), `{"object":"embedding","index":0.5,"embedding":[0.2]}`), "cannot unmarshal number 0.5"),
		bad("numbers as text", embeddingsBody(item(0, "[0.1]"), item(1, `["a","b"]`)), "cannot unmarshal string"),
		bad("number out of range", embeddingsBody(item(0, "[0.1]"), item(1, `[1e40]`)), "cannot unmarshal number 1e40"),
		bad("not base64", embeddingsBody(item(0, "[0.1]"), item(1, `"zczMPQ!="`)), "base64 embedding: illegal base64"),
		bad("base64 not float32s", embeddingsBody(item(0, "[0.1]"), item(1, `"zczM"`)), "3 bytes, not a whole number of float32s"),
		bad("base64 NaN", embeddingsBody(item(0, "[0.1]"), item(1, `"AADAfw=="`)), "NaN or infinite value in the embedding for input 1"),
	)
}

func TestEmbedderFaults(t *testing.T) {
	embedTarget.TestFaults(t)
	t.Run("500 with a text body then 200", func(t *testing.T) {
		embedTarget.Retried(t, providertest.JSONError(500, `Internal Server Error`), -1)
	})
	t.Run("compatible server's error text", func(t *testing.T) {
		srv := replay.NewServer(t, providertest.JSONError(404, `{"error":"model \"nomic\" not found, try pulling it first"}`))
		_, err := newTestEmbedder(t, EmbedderConfig{BaseURL: srv.URL, Model: "nomic"}).Embed(context.Background(), []string{"a"})
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.StatusCode != 404 || !strings.Contains(pe.Message, "not found") {
			t.Fatalf("error = %v", err)
		}
	})
}

func TestEmbedderCancel(t *testing.T) { embedTarget.TestCancel(t) }

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
