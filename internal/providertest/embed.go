package providertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// hashed returns the vectors toolsearch.HashingEmbedder makes of texts with dim dimensions (zero
// for its default).
func hashed(t testing.TB, dim int, texts ...string) [][]float32 {
	t.Helper()
	vecs, err := (&toolsearch.HashingEmbedder{Dim: dim}).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vecs
}

// EqualVectors reports whether a and b hold the same vectors, value for value, in the same order.
func EqualVectors(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, func(x, y []float32) bool { return slices.Equal(x, y) })
}

// EmbedHashed embeds texts with e, an embedder on a fake API that answers with the vectors
// toolsearch.HashingEmbedder makes of what it receives, dim dimensions long (zero for its
// default). It fails t unless each text gets the vector of prefix and the text: the vectors come
// back whole and in the order of the texts, and the API received each text with the prefix the
// embedder was told to add.
func EmbedHashed(t testing.TB, e toolsearch.Embedder, dim int, prefix string, texts ...string) {
	t.Helper()
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	sent := make([]string, len(texts))
	for i, text := range texts {
		sent[i] = prefix + text
	}
	if !EqualVectors(got, hashed(t, dim, sent...)) {
		t.Fatalf("the vectors of %q are not those of %q", texts, sent)
	}
}

// SearchCatalog is the tool catalog of [EmbedderSearch]: tools on unrelated subjects, each
// sharing words with one of [SearchQueries].
var SearchCatalog = []tool.Definition{
	searchTool("get_weather", "Get the current weather for a city.", "city", "City name"),
	searchTool("get_stock_price", "Current price of a stock on an exchange.", "ticker", "Stock ticker symbol"),
	searchTool("send_email", "Send an email message to a recipient.", "to", "Recipient address"),
	searchTool("translate_text", "Translate text into another language.", "language", "Target language"),
	searchTool("book_flight", "Book a flight between two airports.", "from", "Departure airport"),
}

// SearchQueries are the searches of [EmbedderSearch], each with the tool of [SearchCatalog]
// it is about.
var SearchQueries = map[string]string{
	"what is the weather in Lisbon":        "get_weather",
	"price of the ACME stock":              "get_stock_price",
	"email my recipient a message":         "send_email",
	"translate this into another language": "translate_text",
	"book me a flight to Rome":             "book_flight",
}

func searchTool(name, description, param, paramDescription string) tool.Definition {
	schema := fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string","description":%q}}}`, param, paramDescription)
	return tool.Definition{Name: name, Description: description, InputSchema: json.RawMessage(schema)}
}

// EmbedderSearch is the end-to-end check of an embedder: a toolsearch.VectorIndex on docs, with
// queries embedding the searches (nil: docs embeds them too), indexes [SearchCatalog], and every
// one of [SearchQueries] must find its tool first. Against a fake API answering with the vectors
// of toolsearch.HashingEmbedder (texts sharing words get similar ones), it proves that the
// vectors reach the index whole and in the order of their texts.
func EmbedderSearch(t testing.TB, docs, queries toolsearch.Embedder) {
	t.Helper()
	ix, err := toolsearch.NewVector(docs, toolsearch.VectorConfig{QueryEmbedder: queries})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ix.IndexTools(ctx, "s", SearchCatalog); err != nil {
		t.Fatal(err)
	}
	for query, want := range SearchQueries {
		hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "s", Query: query, MaxResults: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Name != want {
			t.Errorf("%q found %v, want %s first", query, hits, want)
		}
	}
}

// HashingAPI starts a fake embeddings API on 127.0.0.1, the API an example talks to. It decodes
// each request's JSON body into a Req, embeds the texts texts reads from it with
// toolsearch.HashingEmbedder (texts sharing words get similar vectors) and answers with the JSON
// of answer. A body that is not a Req is answered with 400.
func HashingAPI[Req any](texts func(*Req) []string, answer func(req *Req, vecs [][]float32) any) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := new(Req)
		if err := json.NewDecoder(r.Body).Decode(req); err != nil {
			http.Error(w, `{"error":"invalid request"}`, http.StatusBadRequest)
			return
		}
		vecs, _ := (&toolsearch.HashingEmbedder{}).Embed(r.Context(), texts(req))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer(req, vecs))
	}))
}
