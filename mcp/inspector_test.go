package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/inspector"
	"github.com/wield-ai/wield/tool"
)

// TestInspectorStdio checks the wield conformance server, run over stdio by the MCP inspector.
func TestInspectorStdio(t *testing.T) {
	t.Parallel()
	target := []string{program(t, "conformance-server")}
	names := inspector.ListTools(t, target)
	for _, want := range []string{"test_simple_text", "test_error_handling", "json_schema_2020_12_tool", "test_sampling"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	for _, tc := range []struct {
		tool, arg string
		isError   bool
		want      string
	}{
		{tool: "test_simple_text", want: "This is a simple text response for testing."},
		{tool: "json_schema_2020_12_tool", arg: "name=Ada", want: `"name":"Ada"`},
		{tool: "test_error_handling", isError: true, want: "intentionally returns an error"},
		// The inspector cannot sample, so the tool fails cleanly.
		{tool: "test_sampling", arg: "prompt=hi", isError: true, want: "sampling failed"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.arg != "" {
				args = append(args, tc.arg)
			}
			text, isErr := inspector.CallTool(t, target, tc.tool, args...)
			if isErr != tc.isError || !strings.Contains(text, tc.want) {
				t.Errorf("%s = %q, isError %v; want %q, isError %v", tc.tool, text, isErr, tc.want, tc.isError)
			}
		})
	}
}

type forecastIn struct {
	City  string     `json:"city" jsonschema:"the city"`
	Days  int        `json:"days,omitempty" jsonschema:"how many days ahead"`
	Units string     `json:"units,omitempty" enum:"C,F" jsonschema:"temperature unit"`
	Tags  []string   `json:"tags,omitempty"`
	From  *time.Time `json:"from,omitempty"`
}

type forecastOut struct {
	City         string    `json:"city"`
	Temperatures []float64 `json:"temperatures"`
	Conditions   string    `json:"conditions"`
}

func forecast(_ context.Context, in forecastIn) (forecastOut, error) {
	days := max(in.Days, 1)
	out := forecastOut{City: in.City, Conditions: "sunny in " + in.City}
	for i := range days {
		out.Temperatures = append(out.Temperatures, 20+float64(i))
	}
	return out, nil
}

// TestInspectorHTTP checks wield tools (typed tool.Func tools, their schemas inferred) served over
// streamable HTTP with the MCP inspector, and that its --strict check does catch schema problems
// (so its silence means something).
func TestInspectorHTTP(t *testing.T) {
	t.Parallel()
	tools := []tool.Tool{
		tool.Must(tool.Func("forecast", "Get the weather forecast", forecast)),
		tool.Must(tool.Func("echo", "Echo a message", func(_ context.Context, in struct {
			Message string `json:"message"`
		}) (string, error) {
			return in.Message, nil
		})),
		newTool("rich", richSchema, func(context.Context, string) (string, error) { return "ok", nil }),
	}
	if len(tools[0].Definition().OutputSchema) == 0 {
		t.Fatal("tool.Func inferred no output schema for a struct result")
	}

	serve := func(tools ...tool.Tool) []string {
		h, err := mustServer(t, tools...).Handler(nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return []string{ts.URL + "/mcp", "--transport", "http"}
	}
	target := serve(tools...)
	if names := inspector.ListTools(t, target); strings.Join(names, ",") != "echo,forecast,rich" {
		t.Errorf("tools/list = %v", names)
	}
	if text, isErr := inspector.CallTool(t, target, "forecast", "city=Paris", "days=2", "units=C"); isErr || !strings.Contains(text, `"conditions":"sunny in Paris"`) {
		t.Errorf("forecast = %q, isError %v", text, isErr)
	}
	if text, isErr := inspector.CallTool(t, target, "forecast", "days=2"); !isErr || !strings.Contains(text, "invalid arguments") {
		t.Errorf("forecast without city = %q, isError %v", text, isErr)
	}
	if text, isErr := inspector.CallTool(t, target, "forecast", "city=Oslo", "units=K"); !isErr || !strings.Contains(text, "units") {
		t.Errorf("forecast with a bad unit = %q, isError %v", text, isErr)
	}

	// Control: a schema problem is reported, and an error-severity one fails --strict.
	bad := serve(newTool("nullable", `{"type":"object","properties":{"x":{"type":["string","null"]},"y":true}}`, nil))
	_, stderr, code := inspector.Run(t, bad, "--method", "tools/list", "--strict")
	if code == 0 || !strings.Contains(stderr, "Warning:") || !strings.Contains(stderr, "Error:") {
		t.Errorf("--strict on a problem schema: exit %d\n%s", code, stderr)
	}
}
