package attack

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// rawRequest is a message a hostile server receives.
type rawRequest struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// rawServer plays an MCP server that writes whatever it likes: it answers initialize itself and
// hands every other request to handle, whose lines (raw JSON-RPC, one message each, or anything
// else) it writes back as they are. Notifications are not passed on.
func rawServer(name string, handle func(req rawRequest) []string) mcp.ServerConfig {
	return mcp.ServerConfig{Name: name, Logger: discard(), Transport: func() (sdk.Transport, error) {
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		go func() {
			defer fromServer.Close()
			sc := bufio.NewScanner(toServer)
			sc.Buffer(make([]byte, 64<<10), 32<<20)
			for sc.Scan() {
				var req rawRequest
				if json.Unmarshal(sc.Bytes(), &req) != nil || req.Method == "" || len(req.ID) == 0 {
					continue
				}
				var lines []string
				if req.Method == "initialize" {
					lines = []string{reply(req.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"hostile","version":"1"}}`)}
				} else {
					lines = handle(req)
				}
				for _, l := range lines {
					if _, err := io.WriteString(fromServer, l+"\n"); err != nil {
						return
					}
				}
			}
		}()
		return &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil
	}}
}

// reply is a JSON-RPC result answering id.
func reply(id json.RawMessage, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

// cursorOf reads the cursor of a list request.
func cursorOf(req rawRequest) string {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.Cursor
}

var bigDescription = strings.Repeat("d", 256<<10)

// A server whose tools/list never ends, cycling through cursors or handing out new ones forever,
// fails the listing with a clear error, after a bounded number of pages, instead of holding the
// caller until its timeout while the list grows in memory.
func TestAttackEndlessToolListing(t *testing.T) {
	cases := map[string]func(page int64, cursor string) (tools, next string){
		// Two cursors taking turns, each page one tool.
		"cycle": func(page int64, cursor string) (string, string) {
			next := map[string]string{"": "a", "a": "b", "b": "a"}[cursor]
			return fmt.Sprintf(`[{"name":"t%s","inputSchema":{"type":"object"}}]`, cursor), next
		},
		// A new cursor every time, and no tools.
		"empty pages": func(page int64, _ string) (string, string) {
			return `[]`, fmt.Sprintf("p%d", page)
		},
		// A new cursor every time, each page sixteen new tools with 256 KB descriptions.
		"growing": func(page int64, _ string) (string, string) {
			var b strings.Builder
			b.WriteByte('[')
			for i := range 16 {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"name":"t%d_%d","description":"%s","inputSchema":{"type":"object"}}`, page, i, bigDescription)
			}
			b.WriteByte(']')
			return b.String(), fmt.Sprintf("p%d", page)
		},
	}
	for name, page := range cases {
		t.Run(name, func(t *testing.T) {
			if name == "growing" && raceEnabled {
				t.Skip("decoding 32 MB takes minutes with the race detector; the other cases cover the same code")
			}
			var pages atomic.Int64
			cfg := rawServer("endless", func(req rawRequest) []string {
				if req.Method != "tools/list" {
					return []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)}
				}
				tools, next := page(pages.Add(1), cursorOf(req))
				return []string{reply(req.ID, fmt.Sprintf(`{"tools":%s,"nextCursor":%q}`, tools, next))}
			})
			cfg.Timeout = -1 // nothing but the listing's own bound may end it
			c, err := mcp.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			tools, err := c.Tools(ctx)
			if ctx.Err() != nil {
				t.Fatalf("the listing was still going after %d pages when the test's 20 seconds ran out", pages.Load())
			}
			if err == nil {
				t.Fatalf("listing an endless tool list succeeded with %d tools", len(tools))
			}
			if !strings.Contains(err.Error(), "endless") {
				t.Errorf("error = %v, want it to say the server's list is endless", err)
			}
			if n := pages.Load(); n > 1000 {
				t.Errorf("%d pages were asked for; want at most 1000", n)
			}
		})
	}
}

var _ = sync.Mutex{}

// rawHTTPServer plays a streamable HTTP MCP server that answers initialize itself and every other
// request with handle's JSON text, as an application/json response; it returns the server's URL.
func rawHTTPServer(t *testing.T, handle func(req rawRequest) string) string {
	return newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req rawRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s1")
		if req.Method == "initialize" {
			io.WriteString(w, reply(req.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`))
			return
		}
		io.WriteString(w, handle(req))
	}))
}

// A streamable HTTP server answering with a JSON body larger than any message wield takes over
// stdio or in an event stream (16 MB) is refused with an error saying so, instead of being read
// into memory whole, however large.
func TestAttackHugeHTTPResponse(t *testing.T) {
	huge := strings.Repeat("x", 17<<20)
	url := rawHTTPServer(t, func(req rawRequest) string {
		switch req.Method {
		case "tools/list":
			return reply(req.ID, `{"tools":[{"name":"big","description":"`+huge+`","inputSchema":{"type":"object"}}]}`)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)
	})
	c, err := mcp.NewClient(mcp.ServerConfig{Name: "huge", Type: mcp.TypeHTTP, URL: url, Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.Tools(testContext(t))
	if err == nil {
		t.Fatalf("a %d MB answer was taken: %d tools", len(huge)>>20, len(tools))
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "16 MB") {
		t.Errorf("error = %v, want it to name the 16 MB limit", err)
	}
}

// A stdio server that prints something other than JSON-RPC on its standard output (a banner, a
// log line: a common mistake of servers, which other clients skip) keeps working: wield skips the
// line, logs it, and reads on, rather than dropping the connection. The server is the real
// mcp-server-everything behind a shell that prints first.
func TestAttackStdoutNoise(t *testing.T) {
	everything := testenv.Bin(t, "mcp-server-everything")
	var logs testenv.Buffer
	c, err := mcp.NewClient(mcp.ServerConfig{
		Name:    "noisy",
		Command: "/bin/sh",
		Args:    []string{"-c", `printf 'Starting server...\n\033]0;pwned\007{"not":"json-rpc"}\n[1,2]\n'; exec "$0" stdio`, everything},
		Env:     map[string]string{"PATH": testenv.Path()},
		Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := testContext(t)
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatalf("listing the tools of a server that printed a banner: %v", err)
	}
	var echo tool.Tool
	for _, tl := range tools {
		if tl.Definition().Name == "echo" {
			echo = tl
		}
	}
	if echo == nil {
		t.Fatalf("no echo tool among %d", len(tools))
	}
	out, err := echo.Call(ctx, `{"message":"still here"}`)
	if err != nil || !strings.Contains(out, "still here") {
		t.Fatalf("echo = %q, %v", out, err)
	}
	if !strings.Contains(logs.String(), "skipped") {
		t.Errorf("nothing logged about the lines skipped:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "\x1b") {
		t.Errorf("the log carries the server's escape sequence raw:\n%q", logs.String())
	}
}

// hugeAnswerServer is a stdio MCP server, in Node, whose tool huge answers with a text of 17 MB,
// over the 16 MB a message may have, and whose tool small answers after a message with an
// object for its id, which JSON-RPC does not allow; initialize and tools/list are answered
// normally.
const hugeAnswerServer = `
const rl = require("readline").createInterface({input: process.stdin});
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
rl.on("line", (line) => {
  const req = JSON.parse(line);
  if (req.id === undefined) return;
  if (req.method === "initialize") {
    send({jsonrpc: "2.0", id: req.id, result: {protocolVersion: "2025-06-18", capabilities: {tools: {}}, serverInfo: {name: "huge", version: "1"}}});
  } else if (req.method === "tools/list") {
    send({jsonrpc: "2.0", id: req.id, result: {tools: [{name: "huge", inputSchema: {type: "object"}}, {name: "small", inputSchema: {type: "object"}}]}});
  } else if (req.params.name === "huge") {
    send({jsonrpc: "2.0", id: req.id, result: {content: [{type: "text", text: "x".repeat(17 << 20)}]}});
  } else {
    process.stdout.write('{"jsonrpc":"2.0","id":{"an":"object"},"result":{}}\n'); // no JSON-RPC message
    send({jsonrpc: "2.0", id: req.id, result: {content: [{type: "text", text: "small answer"}]}});
  }
});
`

// A stdio server's answer over the message size limit fails its own call at once, with an error
// saying so, and the connection goes on serving the next call, skipping a malformed message.
func TestAttackOversizedStdioAnswer(t *testing.T) {
	c := mcptest.Connect(t, mcp.ServerConfig{Name: "huge", Command: testenv.Bin(t, "node"), Args: []string{"-e", hugeAnswerServer}, Logger: discard()})
	ctx := testContext(t)
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) != 2 {
		t.Fatalf("tools = %d, %v", len(tools), err)
	}
	out, err := tools[0].Call(ctx, "{}")
	if err == nil {
		t.Fatalf("a 17 MB answer was taken (%d bytes)", len(out))
	}
	if !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("error = %v, want it to say the answer is over the limit", err)
	}
	if out, err := tools[1].Call(ctx, "{}"); err != nil || out != "small answer" {
		t.Errorf("the next call = %q, %v; want the small answer on the same connection", out, err)
	}
}

// A client sending many calls at once cannot make a wield server run more than
// mcp.DefaultMaxConcurrentCalls of them: the others are refused at once with an error result
// saying the server is busy, rather than each holding a goroutine, its arguments and whatever
// the tool holds until it ends.
func TestAttackConcurrentCallFlood(t *testing.T) {
	release := make(chan struct{})
	var peak testenv.Peak
	slow := tool.Must(tool.Func("slow", "Waits.", func(ctx context.Context, _ struct{}) (string, error) {
		peak.Enter()
		defer peak.Leave()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "done", nil
	}))
	srv, err := mcp.NewServer(nil, &mcp.ServerOptions{Logger: discard()}, slow)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	ct, st := sdk.NewInMemoryTransports()
	if _, err := srv.SDK().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "flood", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	const calls = 4 * mcp.DefaultMaxConcurrentCalls
	var busy atomic.Int64
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
			if err == nil && res.IsError && strings.Contains(mcp.ResultText(res), "busy") {
				busy.Add(1)
			}
		})
	}
	// Wait until every call runs or was refused.
	for peak.Running()+busy.Load() < calls && ctx.Err() == nil && peak.Most() <= mcp.DefaultMaxConcurrentCalls {
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	wg.Wait()
	if m := peak.Most(); m > mcp.DefaultMaxConcurrentCalls {
		t.Fatalf("%d calls ran at once; want at most %d", m, mcp.DefaultMaxConcurrentCalls)
	}
	if b := busy.Load(); b < calls-mcp.DefaultMaxConcurrentCalls {
		t.Errorf("%d calls were refused as busy; want at least %d", b, calls-mcp.DefaultMaxConcurrentCalls)
	}
}

// A server that, while answering a call, sends answers to requests never made, requests of its
// own the client did not offer to serve (sampling, elicitation, roots), a flood of notifications
// (progress for tokens it was never given, log messages, list changes), still
// gets its call answered, and the client's tool list is fetched again after the change.
func TestAttackServerChatter(t *testing.T) {
	var lists atomic.Int64
	cfg := rawServer("chatty", func(req rawRequest) []string {
		switch req.Method {
		case "tools/list":
			lists.Add(1)
			return []string{reply(req.ID, `{"tools":[{"name":"talk","inputSchema":{"type":"object"}}]}`)}
		case "tools/call":
			var lines []string
			lines = append(lines,
				reply(json.RawMessage(`99999`), `{"content":[]}`),
				reply(json.RawMessage(`"never-asked"`), `{}`),
				`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}`,
				`{"jsonrpc":"2.0","id":"s2","method":"elicitation/create","params":{"message":"password?","requestedSchema":{"type":"object"}}}`,
				`{"jsonrpc":"2.0","id":"s3","method":"roots/list"}`,
				`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
			)
			for i := range 2000 {
				lines = append(lines,
					fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"wield-%d","progress":%d}}`, i, i),
					`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"emergency","data":"\u001b]0;pwned\u0007"}}`)
			}
			return append(lines, reply(req.ID, `{"content":[{"type":"text","text":"answered"}]}`))
		}
		return []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)}
	})
	c := mcptest.Connect(t, cfg)
	ctx := testContext(t)
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools = %d, %v", len(tools), err)
	}
	var reports atomic.Int64
	out, err := tools[0].Call(tool.WithProgress(ctx, func(tool.Progress) { reports.Add(1) }), "{}")
	if err != nil || out != "answered" {
		t.Fatalf("call = %q, %v", out, err)
	}
	if n := reports.Load(); n > 1 {
		t.Errorf("%d progress reports reached the caller for tokens the call was not given", n)
	}
	if _, err := c.Tools(ctx); err != nil || lists.Load() != 2 {
		t.Errorf("after list_changed: %v, %d listings; want the list fetched again", err, lists.Load())
	}
}
