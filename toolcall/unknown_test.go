package toolcall

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/tool"
)

// The message for an unknown tool stays short however many tools a request offers, and however
// long the name the model made up: it names the closest tools, not all 2,000 (36 KB a call).
func TestAttackUnknownToolMessageBounded(t *testing.T) {
	var tools []tool.Tool
	for i := range 2000 {
		tools = append(tools, echoTool(fmt.Sprintf("server%d_get_weather_forecast_%d", i%7, i)))
	}
	tools = append(tools, echoTool("searchIssues"))
	p := prompt(tools...)
	for _, tc := range []struct{ called, closest string }{
		{"server3_get_weather_forcast_1242", "server3_get_weather_forecast_1242"},
		{"search_issues", "searchIssues"},
		{"SEARCHISSUES", "searchIssues"},
		{strings.Repeat("\x1b[2J", 1<<18), ""},
		{"", ""},
	} {
		res, err := New(Config{}).Execute(context.Background(), p, response(call("1", tc.called, "{}")))
		if err != nil {
			t.Fatal(err)
		}
		got := toolResults(t, p, res)[0]
		if !got.IsError || !strings.HasPrefix(got.Content, "unknown tool ") {
			t.Fatalf("result %+v", got)
		}
		if len(got.Content) > 2000 {
			t.Errorf("called %.40q: a message of %d bytes", tc.called, len(got.Content))
		}
		if strings.Contains(got.Content, "\x1b") {
			t.Errorf("called %.40q: the name is repeated raw", tc.called)
		}
		if !strings.Contains(got.Content, "of the 2001 available tools, the 10 with the closest names are: "+tc.closest) {
			t.Errorf("called %.40q: %s", tc.called, got.Content)
		}
		t.Logf("%d bytes: %.300s", len(got.Content), got.Content)
	}

	// A few tools are all listed, in the order offered.
	err := unknownTool("ghost", []tool.Definition{{Name: "b"}, {Name: "a"}})
	if want := `unknown tool "ghost"; the available tools are: b, a`; err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}

func BenchmarkUnknownTool(b *testing.B) {
	defs := make([]tool.Definition, 2000)
	for i := range defs {
		defs[i].Name = fmt.Sprintf("server%d_get_weather_forecast_%d", i%7, i)
	}
	for b.Loop() {
		_ = unknownTool("server3_get_weather_forcast_1242", defs)
	}
}
