package httptimeout

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// memory answers every request with body, without a network.
type memory struct{ body []byte }

func (m memory) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: io.NopCloser(bytes.NewReader(m.body)), Request: r}, nil
}

// BenchmarkTransportLoopback is BenchmarkTransport over a real connection to a server on
// 127.0.0.1, as a provider's requests go: the ratio timeouts/bare is what the timeouts add to a
// request in practice.
func BenchmarkTransportLoopback(b *testing.B) {
	body := []byte(strings.Repeat("data: {\"delta\":\"token\"}\n\n", 64<<10/26))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	benchRead(b, body, srv.URL, []rt{{"bare", base}, {"timeouts", &Transport{Base: base}}})
}

// BenchmarkTransport measures a request whose 64 KiB streamed answer is read 512 bytes at a time
// (a read per small SSE event), through the timeouts and, as the baseline, without them. Report
// the ratio timeouts/bare: the cost the timeouts add to every request and read.
func BenchmarkTransport(b *testing.B) {
	body := []byte(strings.Repeat("data: {\"delta\":\"token\"}\n\n", 64<<10/26))
	base := memory{body: body}
	benchRead(b, body, "http://127.0.0.1:1/", []rt{{"bare", base}, {"timeouts", &Transport{Base: base}}})
}

type rt struct {
	name string
	rt   http.RoundTripper
}

func benchRead(b *testing.B, body []byte, url string, rts []rt) {
	buf := make([]byte, 512)
	for _, bc := range rts {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
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
