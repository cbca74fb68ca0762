package openai_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/openai"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// The Embedder backs a toolsearch.VectorIndex without this package importing toolsearch.
var _ toolsearch.Embedder = (*openai.Embedder)(nil)

// fakeEmbeddingsAPI answers POST /embeddings like OpenAI, with vectors made from the words of
// each input, standing in for the real API.
func fakeEmbeddingsAPI() *httptest.Server {
	type request struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	return providertest.HashingAPI(func(req *request) []string { return req.Input }, func(req *request, vecs [][]float32) any {
		data := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		return map[string]any{"object": "list", "model": req.Model, "data": data, "usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
	})
}

// A vector tool index on OpenAI's embeddings (text-embedding-3-small unless Model says
// otherwise). BaseURL reaches any OpenAI-compatible server; empty means $OPENAI_BASE_URL or
// OpenAI itself, with the key from $OPENAI_API_KEY.
func ExampleNewEmbedder() {
	srv := fakeEmbeddingsAPI()
	defer srv.Close()

	e, err := openai.NewEmbedder(openai.EmbedderConfig{BaseURL: srv.URL, APIKey: "sk-test"})
	if err != nil {
		log.Fatal(err)
	}
	ix := toolsearch.NewVectorIndex(e, nil)
	ctx := context.Background()
	tools := []tool.Definition{
		{Name: "get_weather", Description: "Get the current weather for a city."},
		{Name: "send_email", Description: "Send an email message to a recipient."},
		{Name: "get_stock_price", Description: "Current price of a stock."},
	}
	if err := ix.IndexTools(ctx, "conversation-1", tools); err != nil {
		log.Fatal(err)
	}
	hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "conversation-1", Query: "what's the weather in Paris?", MaxResults: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(hits[0].Name)
	// Output: get_weather
}
