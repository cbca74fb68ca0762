package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

// nodeServer is a stdio configuration running an installed npm MCP server on the installed Node.
func nodeServer(t *testing.T, name, program string, args ...string) mcp.ServerConfig {
	t.Helper()
	return mcp.ServerConfig{
		Name:    name,
		Command: testenv.Bin(t, program),
		Args:    args,
		Env:     map[string]string{"PATH": testenv.Path()},
		Stderr:  testWriter(t, name),
	}
}

// httpServer is a running HTTP MCP server process started by a test.
type httpServer struct {
	Addr string // host:port, always on 127.0.0.1
	cmd  *exec.Cmd
	done chan struct{}
}

// startNodeHTTP starts an installed npm MCP server that serves HTTP, bound to 127.0.0.1 by the
// loopback preload, on port (0: any free port), and waits until it listens.
func startNodeHTTP(t *testing.T, program string, port int, args ...string) *httpServer {
	t.Helper()
	preload, err := filepath.Abs("testdata/loopback.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := testenv.Command(t, program, args...)
	cmd.Env = append(cmd.Env, fmt.Sprintf("PORT=%d", port), "NODE_OPTIONS=--require "+preload)
	return startListening(t, cmd)
}

// startListening starts cmd, which must print "WIELD_LISTENING host:port" on stderr once it
// listens, and stops it when the test ends.
func startListening(t *testing.T, cmd *exec.Cmd) *httpServer {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = testWriter(t, filepath.Base(cmd.Path))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "WIELD_LISTENING "); ok {
				select {
				case addr <- a:
				default:
				}
				continue
			}
			logLine(t, filepath.Base(cmd.Path), line)
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(s.Kill)
	select {
	case s.Addr = <-addr:
	case <-s.done:
		t.Fatalf("%s exited before listening", cmd.Path)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start listening", cmd.Path)
	}
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Fatalf("server listens on %s, not on 127.0.0.1", s.Addr)
	}
	return s
}

// Kill stops the server process and waits for it to be gone.
func (s *httpServer) Kill() {
	s.cmd.Process.Kill()
	<-s.done
}

// testWriter logs each line written to it in the test's log, while the test runs.
func testWriter(t *testing.T, prefix string) io.Writer {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			logLine(t, prefix, sc.Text())
		}
		io.Copy(io.Discard, pr)
	}()
	t.Cleanup(func() { pw.Close() })
	return pw
}

var logMu sync.Mutex

// logLine logs a server's line unless the test has finished (t.Log would panic then).
func logLine(t *testing.T, prefix, line string) {
	logMu.Lock()
	defer logMu.Unlock()
	defer func() { recover() }()
	if testing.Verbose() {
		t.Logf("%s: %s", prefix, line)
	}
}

// toolByName returns the tool named name, failing the test if there is none.
func toolByName(t *testing.T, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Definition().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q among %v", name, toolNames(tools))
	return nil
}

func toolNames(tools []tool.Tool) []string {
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Definition().Name
	}
	return names
}

// testContext is a context that ends with the test, bounded so a hang fails instead of stalling.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// sdkSession connects the SDK's client c to srv in memory; the session closes when the test ends.
func sdkSession(t *testing.T, srv *mcp.Server, c *sdk.Client) *sdk.ClientSession {
	t.Helper()
	ctx := testContext(t)
	ct, st := sdk.NewInMemoryTransports()
	if _, err := srv.SDK().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	s, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runTSClient runs the TypeScript SDK client script of testdata with args and decodes the last
// line it prints, its summary as JSON, into got.
func runTSClient(t *testing.T, script string, got any, args ...string) {
	t.Helper()
	node := testenv.Bin(t, "node")
	path, err := filepath.Abs(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), node, append([]string{path}, args...)...)
	cmd.Env = append(cmd.Environ(), "NODE_PATH="+filepath.Join(testenv.ToolsDir(), "node_modules"))
	cmd.Dir = testenv.ToolsDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", script, args, err, out)
	}
	if err := json.Unmarshal(out[strings.LastIndexByte(strings.TrimSpace(string(out)), '\n')+1:], got); err != nil {
		t.Fatalf("%s %q: %v\n%s", script, args, err, out)
	}
}

// tick paces polling loops that wait for another process to act.
func tick() <-chan time.Time { return time.After(20 * time.Millisecond) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// logBuffer is a slog destination for a test: it keeps every record, to check what was logged,
// and shows them in the test's log when run with -v.
type logBuffer struct {
	testenv.Buffer
	t *testing.T
}

func (l *logBuffer) Write(p []byte) (int, error) {
	n, err := l.Buffer.Write(p)
	logLine(l.t, "log", strings.TrimRight(string(p), "\n"))
	return n, err
}

// testLogger returns a logger for a server under test and what it logged.
func testLogger(t *testing.T) (*slog.Logger, *logBuffer) {
	buf := &logBuffer{t: t}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
