package ollama_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/tool"
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
	ctx := context.Background()
	tools := []tool.Definition{
		{Name: "get_weather", Description: "Get the current weather for a city."},
		{Name: "send_email", Description: "Send an email message to a recipient."},
		{Name: "get_stock_price", Description: "Current price of a stock."},
	}
	if err := ix.IndexTools(ctx, "conversation-1", tools); err != nil {
		log.Fatal(err)
	}
	hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "conversation-1", Query: "email a message to Bob", MaxResults: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(hits[0].Name)
	// Output: send_email
}
