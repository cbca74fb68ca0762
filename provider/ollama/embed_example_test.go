package ollama_test

import (
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/toolsearch"
)

// The Embedder backs a toolsearch.VectorIndex without this package importing toolsearch.
var _ toolsearch.Embedder = (*ollama.Embedder)(nil)

// fakeOllamaEmbed answers /api/embed like Ollama, with vectors made from the words of each input,
// standing in for a real server.
func fakeOllamaEmbed() *httptest.Server {
	type request struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	return providertest.HashingAPI(func(req *request) []string { return req.Input }, func(req *request, vecs [][]float32) any {
		return map[string]any{"model": req.Model, "embeddings": vecs}
	})
}

// A vector tool index on a local embedding model. nomic-embed-text is trained to tell documents
// from queries by a prefix, so the tools and the queries get an Embedder each.
func ExampleNewEmbedder() {
	srv := fakeOllamaEmbed() // leave BaseURL empty to use $OLLAMA_HOST or http://127.0.0.1:11434
	defer srv.Close()

	docs, err := ollama.NewEmbedder(ollama.EmbedderConfig{Model: "nomic-embed-text", BaseURL: srv.URL, Prefix: "search_document: "})
	if err != nil {
		log.Fatal(err)
	}
	queries, err := ollama.NewEmbedder(ollama.EmbedderConfig{Model: "nomic-embed-text", BaseURL: srv.URL, Prefix: "search_query: "})
	if err != nil {
		log.Fatal(err)
	}
	ix := toolsearch.NewVectorIndex(docs, &toolsearch.VectorOptions{QueryEmbedder: queries})
	// Of tools for the weather, email and stock prices, the index finds the one a request is about.
	fmt.Println(providertest.FindTool(ix, "email a message to Bob"))
	// Output: send_email
}
