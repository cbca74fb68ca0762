package ollama

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
)

// nameAPI fakes /api/chat for the tool-name loops. Ollama documents no rule for tool names; the
// one wield keeps to (OpenAI's, see provider/internal/toolname) is enforced here, so the test shows that
// every name sent obeys it.
var nameAPI = providertest.NameAPI{
	Rule:  regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`),
	Parse: providertest.ChatNames(true),
	Call: func(w http.ResponseWriter, stream bool, id, wire, args string) {
		msg := fmt.Sprintf(`{"role":"assistant","content":"","tool_calls":[{"id":%q,"function":{"index":0,"name":%q,"arguments":%s}}]}`, id, wire, args)
		write(w, stream, msg)
	},
	Final: func(w http.ResponseWriter, stream bool, text string) {
		write(w, stream, fmt.Sprintf(`{"role":"assistant","content":%q}`, text))
	},
}

// write answers with msg: one JSON object, or an NDJSON line with msg and a last line that is done.
func write(w http.ResponseWriter, stream bool, msg string) {
	if stream {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintf(w, `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":%s,"done":false}`+"\n", msg)
		fmt.Fprint(w, `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":5}`+"\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":%s,"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":5}`, msg)
}

// TestToolNames runs dotted, long, unicode and colliding tool names through whole tool loops:
// the server receives names the rule accepts, in the tools, the calls and the tool messages'
// tool_name, and the model's calls come back under the tools' own names.
func TestToolNames(t *testing.T) {
	providertest.ToolNameLoop(t, nameAPI, func(t testing.TB, url string) chat.Model {
		m, err := New(Config{BaseURL: url, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}
