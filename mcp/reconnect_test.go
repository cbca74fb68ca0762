package mcp_test

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// callInFlight starts a long-running call of server-everything's trigger-long-running-operation
// and returns once the server has reported progress, so the call is running on the server. The
// returned channel yields the call's error.
func callInFlight(t *testing.T, tools []tool.Tool) <-chan error {
	t.Helper()
	long := toolByName(t, tools, "trigger-long-running-operation")
	started := make(chan struct{})
	var once sync.Once
	ctx := tool.WithProgress(testContext(t), func(tool.Progress) { once.Do(func() { close(started) }) })
	done := make(chan error, 1)
	go func() {
		_, err := long.Call(ctx, `{"duration": 60, "steps": 120}`)
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("long call ended before the server was killed: %v", err)
	}
	return done
}

// checkCutOff checks that a call cut off by a dead server failed as a plain (non-fatal) error.
func checkCutOff(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("call survived its server's death")
	}
	var te *mcp.ToolError
	if errors.As(err, &te) || tool.IsFatal(err) || errors.Is(err, context.Canceled) {
		t.Errorf("cut-off call error %v (%T): want a plain connection error", err, err)
	}
	if !strings.Contains(err.Error(), `mcp server "everything"`) {
		t.Errorf("error %q does not name the server", err)
	}
	t.Logf("cut-off call: %v", err)
}

func getSum(t *testing.T, tools []tool.Tool) {
	t.Helper()
	out, err := toolByName(t, tools, "get-sum").Call(testContext(t), `{"a": 40, "b": 2}`)
	if err != nil {
		t.Fatalf("get-sum after reconnect: %v", err)
	}
	if !strings.Contains(out, "42") {
		t.Fatalf("get-sum = %q", out)
	}
}

// TestKillStdioServerMidCall kills a stdio server while a call runs: the call fails, and the next
// call starts a new server process.
func TestKillStdioServerMidCall(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var cmds []*exec.Cmd
	c := mcptest.Connect(t, mcp.ServerConfig{
		Name: "everything",
		Transport: func() (sdk.Transport, error) {
			cmd := testenv.Command(t, "mcp-server-everything", "stdio")
			mu.Lock()
			cmds = append(cmds, cmd)
			mu.Unlock()
			return &sdk.CommandTransport{Command: cmd}, nil
		},
	})
	tools, err := c.Tools(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	done := callInFlight(t, tools)
	mu.Lock()
	first := cmds[0]
	mu.Unlock()
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	checkCutOff(t, <-done)

	getSum(t, tools)
	mu.Lock()
	defer mu.Unlock()
	if len(cmds) != 2 {
		t.Errorf("%d server processes started, want 2 (one reconnection)", len(cmds))
	}
}

// TestKillHTTPServerMidCall kills an HTTP server (streamable, and legacy SSE) while a call runs:
// the call fails, a call while the server is down fails, and once a new server listens at the same
// address the next call reconnects (the new server does not know the old session).
func TestKillHTTPServerMidCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ typ, mode, path string }{
		{mcp.TypeHTTP, "streamableHttp", "/mcp"},
		{mcp.TypeSSE, "sse", "/sse"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			t.Parallel()
			srv := startNodeHTTP(t, "mcp-server-everything", 0, tc.mode)
			c := mcptest.Connect(t, mcp.ServerConfig{Name: "everything", Type: tc.typ, URL: "http://" + srv.Addr + tc.path})
			tools, err := c.Tools(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			done := callInFlight(t, tools)
			srv.Kill()
			checkCutOff(t, <-done)

			if _, err := toolByName(t, tools, "get-sum").Call(testContext(t), `{"a": 1, "b": 2}`); err == nil {
				t.Fatal("call succeeded with the server down")
			} else {
				t.Logf("call with the server down: %v", err)
			}

			port, err := strconv.Atoi(srv.Addr[strings.LastIndexByte(srv.Addr, ':')+1:])
			if err != nil {
				t.Fatal(err)
			}
			startNodeHTTP(t, "mcp-server-everything", port, tc.mode)
			getSum(t, tools)
		})
	}
}
