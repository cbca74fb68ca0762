package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkEmbed measures one Embed call of 64 texts answered with 768-dimension vectors by a
// local server (the client's side: the SDK's request building and decoding, checks), against
// the baseline of posting the same request with net/http and decoding the answer with
// encoding/json into float32s.
func BenchmarkEmbed(b *testing.B) {
	const n, dim = 64, 768
	rng := rand.New(rand.NewPCG(1, 2))
	embeddings := make([]map[string]any, n)
	for i := range embeddings {
		v := make([]float32, dim)
		for j := range v {
			v[j] = rng.Float32()*2 - 1
		}
		embeddings[i] = map[string]any{"values": v}
	}
	body, _ := json.Marshal(map[string]any{"embeddings": embeddings})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool_%d\nDoes thing %d to a resource.", i, i)
	}
	b.Run("baseline", func(b *testing.B) {
		reqs := make([]map[string]any, n)
		for i, t := range texts {
			reqs[i] = map[string]any{"model": "models/" + DefaultEmbeddingModel, "content": map[string]any{"parts": []any{map[string]any{"text": t}}}}
		}
		req, _ := json.Marshal(map[string]any{"requests": reqs})
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			res, err := http.Post(srv.URL+"/v1beta/models/"+DefaultEmbeddingModel+":batchEmbedContents", "application/json", bytes.NewReader(req))
			if err != nil {
				b.Fatal(err)
			}
			var out struct {
				Embeddings []struct {
					Values []float32 `json:"values"`
				} `json:"embeddings"`
			}
			err = json.NewDecoder(res.Body).Decode(&out)
			res.Body.Close()
			if err != nil || len(out.Embeddings) != n {
				b.Fatal(err)
			}
		}
	})
	b.Run("Embedder", func(b *testing.B) {
		e, err := NewEmbedder(context.Background(), EmbedderConfig{BaseURL: srv.URL, APIKey: "k", Dimensions: dim})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := e.Embed(context.Background(), texts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
