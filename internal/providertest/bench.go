package providertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/toolsearch"
)

// MemoryClient returns an HTTP client that answers every request with 200, contentType and body,
// without a network, so that a benchmark measures decoding rather than I/O. Request bodies are
// read and closed, as a server would.
func MemoryClient(contentType string, body []byte) *http.Client {
	return &http.Client{Transport: memoryTransport{contentType: contentType, body: body}}
}

type memoryTransport struct {
	contentType string
	body        []byte
}

func (m memoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {m.contentType}},
		Body:          io.NopCloser(bytes.NewReader(m.body)),
		ContentLength: int64(len(m.body)),
		Request:       r,
	}, nil
}

// ScanSSE counts the data lines of a server-sent-event body: the least any reader of the stream
// does, the baseline of stream benchmarks.
func ScanSSE(body []byte) int {
	return scanLines(body, func(line []byte) bool { return bytes.HasPrefix(line, []byte("data:")) })
}

// ScanNDJSON counts the JSON objects of a newline-delimited JSON body, one a line: the baseline
// of stream benchmarks for NDJSON streams.
func ScanNDJSON(body []byte) int {
	return scanLines(body, func(line []byte) bool { return len(line) > 0 && line[0] == '{' })
}

func scanLines(body []byte, count func([]byte) bool) int {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20) // lines of up to 1 MiB; the first buffer is the default size
	n := 0
	for sc.Scan() {
		if count(sc.Bytes()) {
			n++
		}
	}
	return n
}

// BenchScan is the baseline half of a stream benchmark: scan reading body, in MB/s of body. It
// fails unless scan counts want items, or, when want is 0, at least one.
func BenchScan(b *testing.B, body []byte, scan func([]byte) int, want int) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if n := scan(body); (want == 0 && n == 0) || (want != 0 && n != want) {
			b.Fatalf("%d items scanned, want %d", n, want)
		}
	}
}

// BenchStream is the measured half of a stream benchmark: m.Stream(p), aggregated with
// chat.Aggregate, in MB/s of body, the recorded stream m's HTTP client serves (see
// [MemoryClient]). check vets every aggregated answer, so that a broken stream cannot pass for
// a fast one.
func BenchStream(b *testing.B, body []byte, m chat.Model, p *chat.Prompt, check func(*chat.Response) error) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := chat.Aggregate(m.Stream(context.Background(), p))
		if err != nil {
			b.Fatal(err)
		}
		if err := check(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchTexts returns the n texts of an embedding benchmark: tool texts, as a vector tool index
// embeds them.
func BenchTexts(n int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("tool_%d\nDoes thing %d to a resource.", i, i)
	}
	return texts
}

// BenchVectors returns n vectors of dim values in [-1, 1), the same on every run: the answer of
// an embedding benchmark.
func BenchVectors(n, dim int) [][]float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = rng.Float32()*2 - 1
		}
	}
	return vecs
}

// BenchServer starts a server on 127.0.0.1 that answers every request with 200, contentType
// and the body answer gives for the request's body, and returns its URL. It stops with tb.
func BenchServer(tb testing.TB, contentType string, answer func(request []byte) []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(answer(req))
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// BenchPost is the baseline half of an embedding benchmark: posting the JSON request req to url
// with net/http and decoding the answer with encoding/json into a T whose vectors are float32s,
// in MB/s of size bytes of answer. count says how many vectors a T holds: it must be want.
func BenchPost[T any](b *testing.B, url string, req []byte, size, want int, count func(*T) int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := postDecode(url, req, want, count); err != nil {
			b.Fatal(err)
		}
	}
}

func postDecode[T any](url string, req []byte, want int, count func(*T) int) error {
	res, err := http.Post(url, "application/json", bytes.NewReader(req))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", res.StatusCode)
	}
	var out T
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return err
	}
	if n := count(&out); n != want {
		return fmt.Errorf("%d vectors, want %d", n, want)
	}
	return nil
}

// BenchEmbed is the measured half of an embedding benchmark: e.Embed(texts), in MB/s of size
// bytes of answer (the baseline's, so that the two compare whatever encoding e asks for). It
// fails unless every text gets a vector.
func BenchEmbed(b *testing.B, e toolsearch.Embedder, texts []string, size int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := embedAll(e, texts); err != nil {
			b.Fatal(err)
		}
	}
}

func embedAll(e toolsearch.Embedder, texts []string) error {
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	return nil
}
