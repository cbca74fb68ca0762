package attack

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The sizes the memory review sent: a 20 MiB attachment and a 15 MiB tool result.
const (
	attachmentBytes = 20 << 20
	resultBytes     = 15 << 20
)

// TestMemoryPeak: a turn carrying a 20 MiB attachment (read with content.ReadFile), and a turn
// whose tool returns a 15 MiB result that goes to the next model request, each made by a small
// program on one provider (testdata/rss) in a process of its own, through the provider's request
// encoding to a server on loopback, and measured by its peak resident set (VmHWM). The review
// measured ×19 and ×24 the payload; the target is under ×4, the program's own weight included.
func TestMemoryPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program per provider")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes resident sizes meaningless")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status to read the peak resident set from")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the program with")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "scan.png")
	if err := os.WriteFile(file, pngPayload(attachmentBytes), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, build := range []struct {
		tag       string
		providers []string
	}{
		{"anthropic", []string{"anthropic"}},
		{"openai", []string{"openai", "openai-responses"}},
		{"gemini", []string{"gemini"}},
		{"ollama", []string{"ollama"}},
		{"bedrock", []string{"bedrock"}},
	} {
		bin := filepath.Join(dir, "rss_"+build.tag)
		cmd := exec.CommandContext(t.Context(), goTool, "build", "-tags", "rss_"+build.tag, "-o", bin, "./testdata/rss")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the %s program: %v\n%s", build.tag, err, out)
		}
		for _, name := range build.providers {
			t.Run(name, func(t *testing.T) {
				idle := rssRun(t, bin, name, "idle")
				t.Logf("idle program: %.1f MiB", mib(idle))
				if name == "bedrock" {
					// Converse takes images up to 3.75 MB and documents up to 4.5 MB: the
					// attachment is refused before anything is encoded.
					t.Log("attachment: refused by Converse's size limits")
				} else {
					check(t, "attachment", rssRun(t, bin, name, "attach", file), attachmentBytes, memoryBound(name))
				}
				check(t, "result", rssRun(t, bin, name, "result", strconv.Itoa(resultBytes)), resultBytes, memoryBound(name))
			})
		}
	}
}

// memoryBound is the bound on peak RSS over payload. Bedrock's SDK serializes the request into a
// buffer and copies it out (smithy's ShapeSerializer.Bytes), and SigV4 hashes the body whole:
// two copies of the payload no transport below it can avoid.
func memoryBound(provider string) float64 {
	if provider == "bedrock" {
		return 4.5
	}
	return 4
}

func check(t *testing.T, what string, peak int64, payload int, bound float64) {
	t.Helper()
	ratio := float64(peak) / float64(payload)
	t.Logf("%s: peak RSS %.1f MiB, ×%.2f the %d MiB payload", what, mib(peak), ratio, payload>>20)
	if ratio > bound {
		t.Errorf("%s: peak RSS %.1f MiB is ×%.2f the payload, over the bound of ×%.1f", what, mib(peak), ratio, bound)
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// rssRun runs the program and returns the peak RSS it prints.
func rssRun(t *testing.T, bin string, args ...string) int64 {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "peak ")
	n, perr := strconv.ParseInt(v, 10, 64)
	if !ok || perr != nil {
		t.Fatalf("%s printed %q", strings.Join(args, " "), out)
	}
	return n
}

// pngPayload is n bytes that read as a PNG: the signature, then noise.
func pngPayload(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	copy(b, "\x89PNG\r\n\x1a\n")
	return b
}

var textAnswer = map[string]string{
	"anthropic":        `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
	"openai":           `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
	"openai-responses": `{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"ok","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
	"gemini":           `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`,
	"ollama":           `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`,
	"bedrock":          `{"output":{"message":{"role":"assistant","content":[{"text":"ok"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"metrics":{"latencyMs":1}}`,
}

var toolCallAnswer = map[string]string{
	"anthropic":        `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"tu_1","name":"big","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`,
	"openai":           `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"big","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
	"openai-responses": `{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"big","arguments":"{}","status":"completed"}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
	"gemini":           `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"big","args":{}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`,
	"ollama":           `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"big","arguments":{}}}]},"done":true,"done_reason":"stop"}`,
	"bedrock":          `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"tu_1","name":"big","input":{}}}]}},"stopReason":"tool_use","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"metrics":{"latencyMs":1}}`,
}
