package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkEmbed measures one Embed call of 64 texts answered with 1536-dimension vectors by a
// local server (the cost on the client's side: request, decoding, checks), against the baseline
// of posting the same request with net/http and decoding the answer with encoding/json into
// float32s. OpenAI's own API is asked for base64 vectors, which a compatible server is not.
func BenchmarkEmbed(b *testing.B) {
	const n, dim = 64, 1536
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]map[string]any, n)
	data64 := make([]map[string]any, n)
	for i := range data {
		v := make([]float32, dim)
		raw := make([]byte, 0, 4*dim)
		for j := range v {
			v[j] = rng.Float32()*2 - 1
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v[j]))
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		data64[i] = map[string]any{"object": "embedding", "index": i, "embedding": base64.StdEncoding.EncodeToString(raw)}
	}
	usage := map[string]int{"prompt_tokens": 640, "total_tokens": 640}
	body, _ := json.Marshal(map[string]any{"object": "list", "model": "text-embedding-3-small", "data": data, "usage": usage})
	body64, _ := json.Marshal(map[string]any{"object": "list", "model": "text-embedding-3-small", "data": data64, "usage": usage})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if bytes.Contains(req, []byte(`"encoding_format":"base64"`)) {
			_, _ = w.Write(body64)
			return
		}
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool_%d\nDoes thing %d to a resource.", i, i)
	}
	b.Run("baseline", func(b *testing.B) {
		req, _ := json.Marshal(map[string]any{"model": "text-embedding-3-small", "input": texts})
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			res, err := http.Post(srv.URL+"/embeddings", "application/json", bytes.NewReader(req))
			if err != nil {
				b.Fatal(err)
			}
			var out struct {
				Data []struct {
					Index     int       `json:"index"`
					Embedding []float32 `json:"embedding"`
				} `json:"data"`
			}
			err = json.NewDecoder(res.Body).Decode(&out)
			res.Body.Close()
			if err != nil || len(out.Data) != n {
				b.Fatal(err)
			}
		}
	})
	// floats: a compatible server; base64: OpenAI, reached here through a proxying transport.
	for _, c := range []struct {
		name string
		cfg  EmbedderConfig
	}{
		{"Embedder/floats", EmbedderConfig{BaseURL: srv.URL}},
		{"Embedder/base64", EmbedderConfig{BaseURL: DefaultBaseURL, HTTPClient: &http.Client{Transport: toServer{url: srv.URL}}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.cfg.APIKey = "k"
			e, err := NewEmbedder(c.cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body))) // the same vectors as the baseline, whatever the encoding
			for b.Loop() {
				if _, err := e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
