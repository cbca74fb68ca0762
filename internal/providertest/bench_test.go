package providertest

import (
	"io"
	"strings"
	"testing"
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
