package chattest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// Tool is a [tool.Tool] whose definition, metadata and behaviour a test sets directly, and which
// records the arguments of its calls. Unlike [tool.New] and [tool.Func] it checks nothing, so a
// test can also hand the code under test a tool with no schema, a hostile one, or metadata that
// changes between calls. Use it by pointer; set the fields before the code under test calls it.
type Tool struct {
	// Def is what Definition returns.
	Def tool.Definition
	// Meta is what Metadata returns.
	Meta tool.Metadata
	// Func runs a call; nil answers every call with "<name> done", name being Def.Name.
	Func func(ctx context.Context, args string) (string, error)

	mu   sync.Mutex
	args []string
}

// NewTool returns a Tool named name, described as "the <name> tool", taking any JSON object and
// running fn.
func NewTool(name string, fn func(ctx context.Context, args string) (string, error)) *Tool {
	return &Tool{
		Def:  tool.Definition{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Func: fn,
	}
}

// WithMetadata sets t's metadata and returns t, for building a tool in one expression.
func (t *Tool) WithMetadata(meta tool.Metadata) *Tool { t.Meta = meta; return t }

// Definition returns t.Def.
func (t *Tool) Definition() tool.Definition { return t.Def }

// Metadata returns t.Meta.
func (t *Tool) Metadata() tool.Metadata { return t.Meta }

// Call records args and runs t.Func.
func (t *Tool) Call(ctx context.Context, args string) (string, error) {
	t.mu.Lock()
	t.args = append(t.args, args)
	t.mu.Unlock()
	if t.Func == nil {
		return t.Def.Name + " done", nil
	}
	return t.Func(ctx, args)
}

// Args returns the arguments of every call so far, in the order the calls began.
func (t *Tool) Args() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.args)
}

// ToolResults returns the tool results that end prompt i (from 0): what the code under test sent
// back for the model's tool calls. It fails t if there is no prompt i or it does not end with a
// tool message.
func (m *Model) ToolResults(t testing.TB, i int) []chat.ToolResult {
	t.Helper()
	p := m.Prompt(i)
	if p == nil {
		t.Fatalf("no prompt %d", i)
	}
	if len(p.Messages) == 0 {
		t.Fatalf("prompt %d has no messages", i)
	}
	last := p.Messages[len(p.Messages)-1]
	if last.Role != chat.RoleTool {
		t.Fatalf("prompt %d ends with %+v", i, last)
	}
	return last.ToolResults
}
