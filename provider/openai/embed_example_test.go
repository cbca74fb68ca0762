package openai_test

import (
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/openai"
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
	// Of tools for the weather, email and stock prices, the index finds the one a request is about.
	fmt.Println(providertest.FindTool(ix, "what's the weather in Paris?"))
	// Output: get_weather
}
