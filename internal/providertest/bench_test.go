package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/toolsearch"
)

func TestScanSSE(t *testing.T) {
	body := SSE(`{"type":"a"}`, `{"type":"b"}`) // the framing the Anthropic and OpenAI streams use
	body = append(body, "event: c\r\ndata: {}\r\n\r\n: a comment\n"...)
	if n := ScanSSE(body); n != 3 {
		t.Errorf("ScanSSE counts %d data lines, want 3", n)
	}
}

func TestScanNDJSON(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", 100_000) + `"}`
	body := []byte("{\"a\":1}\n\n" + long + "\n  \n{\"b\":2}")
	if n := ScanNDJSON(body); n != 3 {
		t.Errorf("ScanNDJSON = %d, want 3", n)
	}
}

func TestMemoryClient(t *testing.T) {
	c := MemoryClient("text/event-stream", []byte("data: x\n\n"))
	res, err := c.Post("http://example.invalid/stream", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" || string(b) != "data: x\n\n" || res.ContentLength != int64(len(b)) {
		t.Errorf("answer %d %v %q", res.StatusCode, res.Header, b)
	}
}

func TestBenchVectors(t *testing.T) {
	vecs := BenchVectors(3, 8)
	if len(vecs) != 3 || len(vecs[2]) != 8 || !EqualVectors(vecs, BenchVectors(3, 8)) || slices.Equal(vecs[0], vecs[1]) {
		t.Fatalf("vectors %v", vecs)
	}
	for _, v := range vecs {
		for _, x := range v {
			if x < -1 || x >= 1 {
				t.Fatalf("value %v out of [-1, 1)", x)
			}
		}
	}
	if texts := BenchTexts(3); len(texts) != 3 || texts[1] == texts[2] {
		t.Errorf("texts %q", texts)
	}
}

// TestBenchHalves: what each half of an embedding benchmark does once per iteration fails for
// an answer that does not hold the vectors, so that neither half can be fast by doing less.
func TestBenchHalves(t *testing.T) {
	type answer struct{ Vectors [][]float32 }
	count := func(a *answer) int { return len(a.Vectors) }
	body, _ := json.Marshal(answer{BenchVectors(2, 4)})
	url := BenchServer(t, "application/json", func(req []byte) []byte {
		if string(req) == "bad" {
			return body[:10]
		}
		return body
	})
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	for _, tt := range []struct {
		name, url, req string
		want           int
		ok             bool
	}{
		{"sound", url, "{}", 2, true},
		{"too few vectors", url, "{}", 3, false},
		{"not JSON", url, "bad", 2, false},
		{"an error answer", missing.URL, "{}", 2, false},
	} {
		if err := postDecode(tt.url, []byte(tt.req), tt.want, count); (err == nil) != tt.ok {
			t.Errorf("baseline, %s: %v", tt.name, err)
		}
	}

	texts := BenchTexts(3)
	for _, tt := range []struct {
		name string
		e    toolsearch.Embedder
		ok   bool
	}{
		{"sound", toyEmbedder{}, true},
		{"an error", toyEmbedder{fail: true}, false},
		{"a vector missing", toyEmbedder{dropLast: true}, false},
	} {
		if err := embedAll(tt.e, texts); (err == nil) != tt.ok {
			t.Errorf("Embedder, %s: %v", tt.name, err)
		}
	}
}
