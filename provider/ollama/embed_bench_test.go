package ollama

import (
	"encoding/json"
	"testing"

	"github.com/wield-ai/wield/internal/providertest"
)

// BenchmarkEmbed measures one Embed call of 64 texts answered with 768-dimension vectors by a
// local server (the client's side: request, decoding, checks, retry and watch transports),
// against the baseline of posting the same request with net/http and decoding the answer with
// encoding/json into float32s.
func BenchmarkEmbed(b *testing.B) {
	const n, dim = 64, 768
	body, _ := json.Marshal(map[string]any{"model": "embeddinggemma", "embeddings": providertest.BenchVectors(n, dim),
		"total_duration": 14143917, "prompt_eval_count": 640})
	url := providertest.BenchServer(b, "application/json; charset=utf-8", func([]byte) []byte { return body })
	texts := providertest.BenchTexts(n)
	b.Run("baseline", func(b *testing.B) {
		req, _ := json.Marshal(map[string]any{"model": "embeddinggemma", "input": texts})
		providertest.BenchPost(b, url+"/api/embed", req, len(body), n, func(out *struct{ Embeddings [][]float32 }) int {
			return len(out.Embeddings)
		})
	})
	b.Run("Embedder", func(b *testing.B) {
		e, err := NewEmbedder(EmbedderConfig{Model: "embeddinggemma", BaseURL: url})
		if err != nil {
			b.Fatal(err)
		}
		providertest.BenchEmbed(b, e, texts, len(body))
	})
}
