package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/examples/internal/exampletest"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/mcp"
)

// buildToolServer builds ./toolserver, with the race detector when the tests use it (which reuses
// the packages the test build compiled).
func buildToolServer(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "the go command")
	}
	bin := filepath.Join(t.TempDir(), "toolserver")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goBin, append(args, "./toolserver")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the tool server: %v\n%s", err, out)
	}
	return bin
}

var served = regexp.MustCompile(`toolserver pid (\d+): (\w+)\("Paris"\)`)

// checkServed checks that the calls ran in one tool-server process, not in this one.
func checkServed(t *testing.T, log *testenv.Buffer, want int) {
	t.Helper()
	// The tool server logs a call after answering it, and its log reaches this process through a
	// pipe read by another goroutine: wait for the lines rather than read them at once.
	stderr := log.String()
	for deadline := time.Now().Add(10 * time.Second); len(served.FindAllStringSubmatch(stderr, -1)) < want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		stderr = log.String()
	}
	matches := served.FindAllStringSubmatch(stderr, -1)
	if len(matches) != want {
		t.Fatalf("tool server ran %d calls, want %d; its log:\n%s", len(matches), want, stderr)
	}
	for _, m := range matches {
		if m[1] == fmt.Sprint(os.Getpid()) || m[1] != matches[0][1] {
			t.Errorf("call %s ran in process %s (this test is %d)", m[2], m[1], os.Getpid())
		}
	}
}

const want = "It is sunny and 72°F in Paris, France, a city of 2102650 people.\n"

// TestDelegationStdio runs both loops here with every tool call executed by the tool server, a
// separate process reached over stdio.
func TestDelegationStdio(t *testing.T) {
	var stderr testenv.Buffer
	ctx := context.Background()
	agent, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "agent", Command: buildToolServer(t), Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()

	model := scriptedModel()
	out := exampletest.Output(t, func(w io.Writer) error { return runLoop(ctx, model, agent, w) })
	if out != want {
		t.Errorf("client loop answered %q, want %q", out, want)
	}
	checkResults(t, model)

	model = scriptedModel()
	out = exampletest.Output(t, func(w io.Writer) error { return runDelegated(ctx, model, agent, w) })
	wantDelegated := "delegating getWeather({\"city\":\"Paris\"})\ndelegating getCityInfo({\"city\":\"Paris\"})\n" + want
	if out != wantDelegated {
		t.Errorf("delegated loop printed %q, want %q", out, wantDelegated)
	}
	checkResults(t, model)
	agent.Close()
	checkServed(t, &stderr, 4)
}

// checkResults checks what the model was sent back: the agent's JSON results, in call order, with
// the calls' ids.
func checkResults(t *testing.T, model *chattest.Model) {
	t.Helper()
	p := model.Prompt(1)
	results := p.Messages[len(p.Messages)-1].ToolResults
	if len(results) != 2 ||
		results[0].ID != "toolu_weather" || results[0].Content != `{"city":"Paris","temperature":72,"conditions":"sunny"}` ||
		results[1].ID != "toolu_city" || results[1].Content != `{"city":"Paris","country":"France","population":2102650}` {
		t.Errorf("tool results sent to the model = %+v", results)
	}
}

// TestDelegationHTTP reaches the tool server over streamable HTTP on 127.0.0.1.
func TestDelegationHTTP(t *testing.T) {
	cmd := exec.Command(buildToolServer(t), "-http", "127.0.0.1:0")
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var stderr testenv.Buffer
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(&stderr, line)
			if u, ok := strings.CutPrefix(line, "toolserver listening on "); ok {
				url <- u
			}
		}
		io.Copy(io.Discard, stderrPipe)
	}()
	var endpoint string
	select {
	case endpoint = <-url:
	case <-time.After(time.Minute):
		t.Fatal("the tool server did not start listening")
	}
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Fatalf("tool server listens at %s", endpoint)
	}

	ctx := context.Background()
	agent, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "agent", URL: endpoint, Type: mcp.TypeHTTP})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	model := scriptedModel()
	out := exampletest.Output(t, func(w io.Writer) error { return runDelegated(ctx, model, agent, w) })
	if !strings.HasSuffix(out, want) {
		t.Errorf("delegated loop printed %q", out)
	}
	checkResults(t, model)
	checkServed(t, &stderr, 2)
}
