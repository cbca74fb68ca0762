package gemini_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// The Embedder backs a toolsearch.VectorIndex without this package importing toolsearch.
var _ toolsearch.Embedder = (*gemini.Embedder)(nil)

// fakeGeminiEmbed answers batchEmbedContents like the Gemini API, with vectors made from the
// words of each text, standing in for the real API.
func fakeGeminiEmbed() *httptest.Server {
	type request struct {
		Requests []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"requests"`
	}
	return providertest.HashingAPI(func(req *request) []string {
		var texts []string
		for _, q := range req.Requests {
			texts = append(texts, q.Content.Parts[0].Text)
		}
		return texts
	}, func(_ *request, vecs [][]float32) any {
		embeddings := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			embeddings[i] = map[string]any{"values": v}
		}
		return map[string]any{"embeddings": embeddings}
	})
}

// A vector tool index on Gemini embeddings. Gemini embeds a text for the use it is put to, so
// the tools are embedded as documents and the searches as queries, by two Embedders.
func ExampleNewEmbedder() {
	srv := fakeGeminiEmbed() // leave BaseURL empty for the Gemini API, with the key from $GEMINI_API_KEY
	defer srv.Close()

	ctx := context.Background()
	docs, err := gemini.NewEmbedder(ctx, gemini.EmbedderConfig{BaseURL: srv.URL, APIKey: "test-key", TaskType: gemini.TaskRetrievalDocument})
	if err != nil {
		log.Fatal(err)
	}
	queries, err := gemini.NewEmbedder(ctx, gemini.EmbedderConfig{BaseURL: srv.URL, APIKey: "test-key", TaskType: gemini.TaskRetrievalQuery})
	if err != nil {
		log.Fatal(err)
	}
	ix := toolsearch.NewVectorIndex(docs, &toolsearch.VectorOptions{QueryEmbedder: queries})
	tools := []tool.Definition{
		{Name: "get_weather", Description: "Get the current weather for a city."},
		{Name: "send_email", Description: "Send an email message to a recipient."},
		{Name: "get_stock_price", Description: "Current price of a stock."},
	}
	if err := ix.IndexTools(ctx, "conversation-1", tools); err != nil {
		log.Fatal(err)
	}
	hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: "conversation-1", Query: "stock price of ACME", MaxResults: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(hits[0].Name)
	// Output: get_stock_price
}
