package providertest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/wield-ai/wield/chat"
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
