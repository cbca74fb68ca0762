package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// commandTransport runs a stdio server and speaks to it over its standard input and output, as
// the Go SDK's CommandTransport does, but reads its output through a frame filter: the SDK ends
// the connection on the first line that is not a JSON-RPC message, so a server that prints a
// banner or a log line on standard output (a common mistake, which other clients skip over)
// could not be used. Such lines are skipped and logged, and an answer over the size limit fails
// its own request rather than the connection.
type commandTransport struct {
	cmd       *exec.Cmd
	terminate time.Duration // how long Close waits after closing stdin, then after SIGTERM
	server    string
	logger    *slog.Logger
}

func (t *commandTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	f := &frameFilter{r: bufio.NewReaderSize(stdout, 64<<10), limit: DefaultMaxMessageBytes, server: t.server, logger: t.logger}
	// The filter bounds frames, so the SDK's own limit, which ends the connection, never trips.
	return (&sdk.IOTransport{Reader: f, Writer: &serverInput{cmd: t.cmd, stdin: stdin, terminate: t.terminate}, MaxLineLength: -1}).Connect(ctx)
}

// serverInput is a stdio server's standard input; closing it stops the server as the MCP
// specification says: close its input, wait, SIGTERM, wait, SIGKILL.
type serverInput struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	terminate time.Duration
}

func (s *serverInput) Write(p []byte) (int, error) { return s.stdin.Write(p) }

func (s *serverInput) Close() error {
	if err := s.stdin.Close(); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("closing stdin: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(s.terminate)
		defer t.Stop()
		select {
		case err := <-done:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if s.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("the server process does not end")
}
