package httptimeout

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// memory answers every request with body, without a network.
type memory struct{ body []byte }

func (m memory) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader(m.body)), Request: r}, nil
}

// BenchmarkTransport measures a request whose 64 KiB streamed answer is read 512 bytes at a time
// (a read per small SSE event), through the timeouts and, as the baseline, without them. Report
// the ratio timeouts/bare: the cost the timeouts add to every request and read.
func BenchmarkTransport(b *testing.B) {
	body := []byte(strings.Repeat("data: {\"delta\":\"token\"}\n\n", 64<<10/26))
	base := memory{body: body}
	buf := make([]byte, 512)
	for _, bc := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"bare", base},
		{"timeouts", &Transport{Base: base}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", nil)
				resp, err := bc.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					k, err := resp.Body.Read(buf)
					n += k
					if err != nil {
						break
					}
				}
				resp.Body.Close()
				if n != len(body) {
					b.Fatalf("read %d of %d bytes", n, len(body))
				}
			}
		})
	}
}
