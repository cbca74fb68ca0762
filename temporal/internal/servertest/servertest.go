// Package servertest starts the Temporal server of the module's tests: the program
// wield-temporal-devserver (temporal/devserver, the server's own Go module), which
// scripts/setup/30-temporal.sh builds into $WIELD_TOOLS/bin. One server, on 127.0.0.1, serves
// every test of a test binary; [Stop] ends it from TestMain.
package servertest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/wield-ai/wield/internal/testenv"
)

// Program is the name of the installed server program.
const Program = "wield-temporal-devserver"

var server struct {
	once     sync.Once
	addr, ns string
	err      error
	cmd      *exec.Cmd
	stdin    io.Closer
	stderr   testenv.Buffer
}

// Start starts the server on first use and returns its address and namespace. Without the
// program it skips t (or fails it in CI).
func Start(t testing.TB) (addr, namespace string) {
	t.Helper()
	bin := testenv.Bin(t, Program)
	server.once.Do(func() { server.err = start(bin) })
	if server.err != nil {
		t.Fatalf("starting the Temporal server: %v\n%s", server.err, server.stderr.String())
	}
	return server.addr, server.ns
}

// Dial returns a Temporal client of the server, closed after t.
func Dial(t testing.TB) sdkclient.Client {
	t.Helper()
	addr, ns := Start(t)
	c, err := DialAt(addr, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// DialAt returns a Temporal client of the server at addr, for child processes of tests, whose
// logs go nowhere.
func DialAt(addr, namespace string) (sdkclient.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return sdkclient.DialContext(ctx, sdkclient.Options{HostPort: addr, Namespace: namespace, Logger: Quiet()})
}

// Quiet returns a Temporal logger that drops everything.
func Quiet() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func start(bin string) error {
	cmd := exec.Command(bin)
	cmd.Stderr = &server.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	server.cmd, server.stdin = cmd, stdin
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l := <-line:
		addr, ns, ok := strings.Cut(strings.TrimSpace(l), " ")
		if !ok || !strings.HasPrefix(addr, "127.0.0.1:") {
			return fmt.Errorf("the server printed %q", l)
		}
		server.addr, server.ns = addr, ns
		return nil
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		return errors.New("the server did not start within 5 minutes")
	}
}

// Stop ends the server, if one was started: closing its stdin tells it to stop.
func Stop() {
	if server.cmd == nil {
		return
	}
	_ = server.stdin.Close()
	done := make(chan struct{})
	go func() { _ = server.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = server.cmd.Process.Kill()
		<-done
	}
}
