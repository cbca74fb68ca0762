package gemini

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wield-ai/wield/internal/providertest"
)

// BenchmarkEmbed measures one Embed call of 64 texts answered with 768-dimension vectors by a
// local server (the client's side: the SDK's request building and decoding, checks), against
// the baseline of posting the same request with net/http and decoding the answer with
// encoding/json into float32s.
func BenchmarkEmbed(b *testing.B) {
	const n, dim = 64, 768
	var embeddings []map[string][]float32
	for _, v := range providertest.BenchVectors(n, dim) {
		embeddings = append(embeddings, map[string][]float32{"values": v})
	}
	body, _ := json.Marshal(map[string]any{"embeddings": embeddings})
	url := providertest.BenchServer(b, "application/json", func([]byte) []byte { return body })
	texts := providertest.BenchTexts(n)
	b.Run("baseline", func(b *testing.B) {
		reqs := make([]map[string]any, n)
		for i, t := range texts {
			reqs[i] = map[string]any{"model": "models/" + DefaultEmbeddingModel, "content": map[string]any{"parts": []any{map[string]any{"text": t}}}}
		}
		req, _ := json.Marshal(map[string]any{"requests": reqs})
		providertest.BenchPost(b, url+"/v1beta/models/"+DefaultEmbeddingModel+":batchEmbedContents", req, len(body), n,
			func(out *struct{ Embeddings []struct{ Values []float32 } }) int { return len(out.Embeddings) })
	})
	b.Run("Embedder", func(b *testing.B) {
		e, err := NewEmbedder(context.Background(), EmbedderConfig{BaseURL: url, APIKey: "k", Dimensions: dim})
		if err != nil {
			b.Fatal(err)
		}
		providertest.BenchEmbed(b, e, texts, len(body))
	})
}
