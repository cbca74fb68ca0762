package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

// The compaction tests run a turn whose first tool result is cut to an excerpt in one process,
// stop it for approval, and resume it in another, which reads the cut part back through the
// fetch tool: the original was kept in the store.

const vaultFact = "the vault code is 7391-ALPHA"

// vaultPage is 20 KB with the fact in its middle, where an excerpt cuts it.
func vaultPage() string {
	var b strings.Builder
	for i := 0; b.Len() < 20<<10; i++ {
		if i == 150 {
			b.WriteString(vaultFact + ". ")
		}
		fmt.Fprintf(&b, "line %d: lorem ipsum dolor sit amet. ", i)
	}
	return b.String()
}

var (
	cutID      = regexp.MustCompile(`with id ("[^"]*")`)
	fetchMore  = regexp.MustCompile(`call again with offset (\d+)`)
	vaultValue = regexp.MustCompile(`vault code is ([0-9]+-[A-Z]+)`)
)

// vaultModel reads, notes, asks for an approved confirm call, then fetches the cut read result
// until it finds the fact and answers with it.
func vaultModel(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
	call := func(id, name, args string) (*chat.Response, error) {
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("", chat.ToolCall{ID: id, Name: name, Arguments: args})}}}, nil
	}
	done := map[string]bool{}
	var cut string
	offset := 0
	for _, m := range p.Messages {
		for _, r := range m.ToolResults {
			done[r.Name] = true
			if mm := cutID.FindStringSubmatch(r.Content); mm != nil && r.Name == "read" {
				cut, _ = strconv.Unquote(mm[1])
			}
			if r.Name == compact.FetchToolName {
				if f := vaultValue.FindStringSubmatch(r.Content); f != nil {
					return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("The code is " + f[1] + ".")}}}, nil
				}
				mm := fetchMore.FindStringSubmatch(r.Content)
				if mm == nil {
					return nil, fmt.Errorf("fetch ended without the fact: %.200s", r.Content)
				}
				offset, _ = strconv.Atoi(mm[1])
			}
		}
	}
	switch {
	case !done["read"]:
		return call("call-read", "read", `{}`)
	case !done["note"]:
		return call("call-note", "note", `{}`)
	case !done["confirm"]:
		return call("call-confirm", "confirm", `{}`)
	case cut == "":
		return nil, fmt.Errorf("the read result was not cut")
	}
	return call(fmt.Sprintf("fetch-%d", offset), compact.FetchToolName, fmt.Sprintf(`{"id":%q,"offset":%d}`, cut, offset))
}

// compactClient is the client every compaction process builds: turn states and compaction in
// the store, results capped to 1024 tokens.
func compactClient(s *Store) (*client.Client, error) {
	read, err := tool.Func("read", "reads the page", func(context.Context, struct{}) (string, error) { return vaultPage(), nil })
	if err != nil {
		return nil, err
	}
	note, err := tool.Func("note", "notes", func(context.Context, struct{}) (string, error) { return "noted", nil })
	if err != nil {
		return nil, err
	}
	confirm, err := tool.Func("confirm", "asks to confirm", func(context.Context, struct{}) (string, error) { return "confirmed", nil }, tool.RequiresApproval())
	if err != nil {
		return nil, err
	}
	c := compact.New(compact.Config{ResultCap: 1024, Store: s})
	replies := make([]chattest.Reply, 20)
	for i := range replies {
		replies[i] = chattest.Respond(vaultModel)
	}
	return client.New(chattest.New(replies...), client.WithTools(read, note, confirm),
		client.WithAdvisors(c, client.NewToolLoop(client.ToolLoopConfig{Hooks: c.Hooks()})),
		client.WithTurnStore(memory.Turns(s)))
}

// compactChild is the child side: compact-stop runs the turn of conversation c3 to its stop;
// compact-resume approves and continues it, printing the answer.
func compactChild(ctx context.Context, s *Store, mode string) error {
	c, err := compactClient(s)
	if err != nil {
		return err
	}
	switch mode {
	case "compact-stop":
		resp, err := c.Prompt("Read the page, note it, confirm, then tell me the vault code.").Param(client.ParamConversationID, "c3").Call(ctx).Response()
		if err != nil {
			return err
		}
		if resp.Pending == nil {
			return fmt.Errorf("outcome %v", resp.Outcome)
		}
		fmt.Println("stopped")
	case "compact-resume":
		return resumeApproved(ctx, c, s, "c3")
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	return nil
}

// TestCompactedTurnAcrossProcesses: the stopped turn's stored state holds the excerpt, not the
// original, which the store keeps under the call id; the process that resumes the turn fetches
// the cut fact from there.
func TestCompactedTurnAcrossProcesses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn, dir := b.dsn(t), t.TempDir()
		env := turnEnv(dsn, dir)
		if out := runTurnChild(t, "compact-stop", env); out != "stopped" {
			t.Fatalf("first process printed %q", out)
		}
		s := open(t, dsn)
		st, err := memory.Turns(s).LoadTurn(t.Context(), "c3")
		if err != nil || st == nil {
			t.Fatalf("stored turn: %v", err)
		}
		raw, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), vaultFact) || !strings.Contains(string(raw), "[excerpt:") {
			t.Fatalf("the stored turn does not hold the compacted form (%d bytes)", len(raw))
		}
		if _, orig, ok, err := s.Replaced(t.Context(), "c3", "call-read"); err != nil || !ok || orig[0].ToolResults[0].Content != vaultPage() {
			t.Fatalf("the original is not kept: %v, %v", ok, err)
		}
		if out := runTurnChild(t, "compact-resume", env); out != "The code is 7391-ALPHA." {
			t.Fatalf("resuming process printed %q", out)
		}
	})
}
