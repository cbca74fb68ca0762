package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/mcp"
)

// stdioPeer is a raw client of a server served over a StdioTransport on pipes.
type stdioPeer struct {
	in    *io.PipeWriter // the server's standard input
	lines chan string    // its standard output
	out   *bufio.Scanner
}

// stall bounds how long a peer waits for the server to read or answer: only a server that
// stopped (the failure these tests look for) takes that long.
const stall = 30 * time.Second

func serveStdio(t *testing.T, s *mcp.Server, maxBytes int) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	logger, _ := testLogger(t)
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() {
		err := s.Run(ctx, &mcp.StdioTransport{Reader: inR, Writer: outW, MaxMessageBytes: maxBytes, Logger: logger})
		inR.CloseWithError(fmt.Errorf("the session ended: %v", err))
		outW.Close()
		done <- err
	}()
	p := &stdioPeer{in: inW, lines: make(chan string, 16)}
	p.out = bufio.NewScanner(outR)
	p.out.Buffer(make([]byte, 1<<20), 1<<20)
	go func() {
		for p.out.Scan() {
			p.lines <- p.out.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.CloseWithError(io.EOF)
		inR.CloseWithError(io.EOF) // unblocks a stuck writer
		cancel()
		go io.Copy(io.Discard, outR)
		<-done
	})
	return p
}

func (p *stdioPeer) send(t *testing.T, frame string) {
	t.Helper()
	sent := make(chan error, 1)
	go func() {
		_, err := io.WriteString(p.in, frame+"\n")
		sent <- err
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatalf("the server stopped reading: %v", err)
		}
	case <-time.After(stall):
		t.Fatal("the server stopped reading")
	}
}

// line returns the server's next line of output.
func (p *stdioPeer) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatal("the server ended the session")
		}
		return l
	case <-time.After(stall):
		t.Fatal("the server stopped answering")
	}
	return ""
}

// response is a JSON-RPC response as it came.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (p *stdioPeer) receive(t *testing.T) response {
	t.Helper()
	for {
		l := p.line(t)
		var r response
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("server wrote %q: %v", l, err)
		}
		if r.ID == nil && r.Result == nil && r.Error == nil {
			continue // a notification
		}
		return r
	}
}

// TestStdioSurvivesBadFrames: frames the SDK's own stdio reader would end the session on (too
// large, not JSON, not JSON-RPC) are answered with an error carrying the request's id when it can
// be found, and the session goes on.
func TestStdioSurvivesBadFrames(t *testing.T) {
	s := mustServer(t, echoTool("echo"))
	const limit = 64 << 10
	p := serveStdio(t, s, limit)
	p.send(t, initializeBody)
	if r := p.receive(t); r.Error != nil || string(r.ID) != "1" {
		t.Fatalf("initialize: %+v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	pad := strings.Repeat("x", 4*limit)
	for _, tc := range []struct {
		name, frame string
		code        int
		id          string
	}{
		// The TypeScript SDK writes the id last, after the params that make a frame large.
		{"oversized, id last", `{"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad + `"}},"jsonrpc":"2.0","id":5}`, -32600, "5"},
		{"oversized, id first", `{"jsonrpc":"2.0","id":"req-6","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad + `"}}}`, -32600, `"req-6"`},
		{"oversized, nested ids only", `{"jsonrpc":"2.0","method":"x","params":{"id":7,"pad":"` + pad + `"}}`, -32600, "null"},
		{"not JSON", `{"jsonrpc":"2.0","id":8,"method":`, -32700, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":9,"method":"ping"} {"x":1}`, -32700, "null"},
		{"not JSON-RPC", `{"id":10,"hello":"world"}`, -32600, "10"},
		{"wrong version", `{"jsonrpc":"1.0","id":11,"method":"ping"}`, -32600, "11"},
		{"a number", `42`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch of junk", `[1,2,3]`, -32600, "null"},
		{"deep nesting", strings.Repeat("[", 2000) + strings.Repeat("]", 2000), -32600, "null"},
		{"a batch, which 2025-06-18 removed", `[{"jsonrpc":"2.0","id":12,"method":"ping"}]`, -32600, "null"},
		{"control bytes", "\x00\x01\x1b[2J", -32700, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.send(t, tc.frame)
			r := p.receive(t)
			if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
				t.Errorf("answer %s %+v, want error %d with id %s", r.ID, r.Error, tc.code, tc.id)
			}
			// The session lives on.
			p.send(t, `{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`)
			if r := p.receive(t); r.Error != nil || string(r.ID) != "100" || !strings.Contains(string(r.Result), "echo: still here") {
				t.Fatalf("after the bad frame: %s %s %+v", r.ID, r.Result, r.Error)
			}
		})
	}
	// A frame just within the limit is served.
	text := strings.Repeat("y", limit-200)
	p.send(t, `{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+text+`"}}}`)
	if r := p.receive(t); r.Error != nil || !strings.Contains(string(r.Result), text) {
		t.Fatalf("a frame within the limit: %+v", r.Error)
	}
	// Blank lines and CRLF endings are fine.
	p.send(t, "")
	p.send(t, "  \r")
	p.send(t, `{"jsonrpc":"2.0","id":201,"method":"ping"}`+"\r")
	if r := p.receive(t); r.Error != nil || string(r.ID) != "201" {
		t.Fatalf("ping with CRLF: %+v", r)
	}
}

// TestStdioBatches: a session of protocol version 2025-03-26 may batch, and a batch the SDK
// would end the session on is answered instead.
func TestStdioBatches(t *testing.T) {
	p := serveStdio(t, mustServer(t, echoTool("echo")), 0)
	p.send(t, strings.Replace(initializeBody, "2025-06-18", "2025-03-26", 1))
	if r := p.receive(t); r.Error != nil || !strings.Contains(string(r.Result), `"2025-03-26"`) {
		t.Fatalf("initialize: %s %+v", r.Result, r.Error)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
	if l := p.line(t); !strings.HasPrefix(l, "[") || !strings.Contains(l, `"echo"`) {
		t.Fatalf("batch answer: %q", l)
	}
	for _, batch := range []string{
		`[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","method":"notifications/y"}]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
	} {
		p.send(t, batch)
		if r := p.receive(t); r.Error == nil || r.Error.Code != -32600 {
			t.Errorf("batch %s: %+v", batch, r)
		}
	}
	p.send(t, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if r := p.receive(t); r.Error != nil || string(r.ID) != "4" {
		t.Fatalf("after bad batches: %+v", r)
	}
}

// FuzzStdioTransport feeds arbitrary input to the transport and reads it as the SDK's session
// does: nothing may end the session but the end of input.
func FuzzStdioTransport(f *testing.F) {
	for _, seed := range []string{
		initializeBody + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		"{\n}\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]` + "\n",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","result":{},"id":3}` + "\n",
		"\xff\xfe\n",
		strings.Repeat(`{"a":`, 300) + "\n",
		`[{"jsonrpc":"2.0","method":""},{"jsonrpc":"2.0","method":""}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		tr := &mcp.StdioTransport{Reader: bytes.NewReader(data), Writer: &out, MaxMessageBytes: 256, Logger: discardLogger()}
		conn, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for {
			_, err := conn.Read(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("the session would end on input %q: %v", data, err)
			}
		}
		// Every answer the transport wrote is a JSON-RPC error response on a line of its own.
		for line := range strings.SplitSeq(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var r response
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error == nil || r.ID == nil {
				t.Fatalf("the transport wrote %q for input %q", line, data)
			}
		}
	})
}

func ExampleStdioTransport() {
	server, err := mcp.Start(mcp.ServerOptions{}, echoTool("echo"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Over the process's standard input and output: server.Run(ctx, &mcp.StdioTransport{}).
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.Run(context.Background(), &mcp.StdioTransport{Reader: inR, Writer: outW, Logger: discardLogger()})
	}()
	sc := bufio.NewScanner(outR)
	exchange := func(lines string, answers int) {
		go io.WriteString(inW, lines)
		for range answers {
			sc.Scan()
			var r response
			json.Unmarshal(sc.Bytes(), &r)
			fmt.Println(string(r.ID), r.Error != nil)
		}
	}
	exchange(initializeBody+"\n", 1)
	exchange(`{"jsonrpc":"2.0","id":2,"method":`+"\n"+ // cut short: answered, and the session goes on
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n", 2)
	inW.Close()
	fmt.Println(<-done)
	// Output:
	// 1 false
	// null true
	// 3 false
	// <nil>
}
