package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// BenchmarkEmbed measures one Embed call of 64 texts answered with 1536-dimension vectors by a
// local server (the cost on the client's side: request, decoding, checks), against the baseline
// of posting the same request with net/http and decoding the answer with encoding/json into
// float32s. OpenAI's own API is asked for base64 vectors, which a compatible server is not.
func BenchmarkEmbed(b *testing.B) {
	const n, dim = 64, 1536
	data := make([]map[string]any, n)
	data64 := make([]map[string]any, n)
	for i, v := range providertest.BenchVectors(n, dim) {
		raw := make([]byte, 0, 4*dim)
		for _, x := range v {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		data64[i] = map[string]any{"object": "embedding", "index": i, "embedding": base64.StdEncoding.EncodeToString(raw)}
	}
	usage := map[string]int{"prompt_tokens": 640, "total_tokens": 640}
	body, _ := json.Marshal(map[string]any{"object": "list", "model": "text-embedding-3-small", "data": data, "usage": usage})
	body64, _ := json.Marshal(map[string]any{"object": "list", "model": "text-embedding-3-small", "data": data64, "usage": usage})
	url := providertest.BenchServer(b, "application/json", func(req []byte) []byte {
		if bytes.Contains(req, []byte(`"encoding_format":"base64"`)) {
			return body64
		}
		return body
	})
	texts := providertest.BenchTexts(n)
	b.Run("baseline", func(b *testing.B) {
		type answer struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		req, _ := json.Marshal(map[string]any{"model": "text-embedding-3-small", "input": texts})
		providertest.BenchPost(b, url+"/embeddings", req, len(body), n, func(a *answer) int { return len(a.Data) })
	})
	// floats: a compatible server; base64: OpenAI, reached here through a proxying transport.
	for _, c := range []struct {
		name string
		cfg  EmbedderConfig
	}{
		{"Embedder/floats", EmbedderConfig{BaseURL: url}},
		{"Embedder/base64", EmbedderConfig{BaseURL: DefaultBaseURL, Transport: provider.Transport{HTTPClient: &http.Client{Transport: toServer{url: url}}}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.cfg.APIKey = "k"
			e, err := NewEmbedder(c.cfg)
			if err != nil {
				b.Fatal(err)
			}
			providertest.BenchEmbed(b, e, texts, len(body)) // the same vectors as the baseline, whatever the encoding
		})
	}
}
