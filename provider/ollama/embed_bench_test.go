package ollama

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
// local server (the client's side: request, decoding, checks, retry and watch transports),
// against the baseline of posting the same request with net/http and decoding the answer with
// encoding/json into float32s.
func BenchmarkEmbed(b *testing.B) {
	const n, dim = 64, 768
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = rng.Float32()*2 - 1
		}
	}
	body, _ := json.Marshal(map[string]any{"model": "embeddinggemma", "embeddings": vecs, "total_duration": 14143917, "prompt_eval_count": 640})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool_%d\nDoes thing %d to a resource.", i, i)
	}
	b.Run("baseline", func(b *testing.B) {
		req, _ := json.Marshal(map[string]any{"model": "embeddinggemma", "input": texts})
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			res, err := http.Post(srv.URL+"/api/embed", "application/json", bytes.NewReader(req))
			if err != nil {
				b.Fatal(err)
			}
			var out struct {
				Embeddings [][]float32 `json:"embeddings"`
			}
			err = json.NewDecoder(res.Body).Decode(&out)
			res.Body.Close()
			if err != nil || len(out.Embeddings) != n {
				b.Fatal(err)
			}
		}
	})
	b.Run("Embedder", func(b *testing.B) {
		e, err := NewEmbedder(EmbedderConfig{Model: "embeddinggemma", BaseURL: srv.URL})
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
