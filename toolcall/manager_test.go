package toolcall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// countingResolver resolves from a static set and counts lookups.
type countingResolver struct {
	tool.Resolver
	lookups []string
}

func (r *countingResolver) Resolve(ctx context.Context, name string) (tool.Tool, error) {
	r.lookups = append(r.lookups, name)
	return r.Resolver.Resolve(ctx, name)
}

// aliasResolver maps every name to one tool.
type aliasResolver struct{ t tool.Tool }

func (r aliasResolver) Resolve(context.Context, string) (tool.Tool, error) { return r.t, nil }

type brokenResolver struct{}

func (brokenResolver) Resolve(context.Context, string) (tool.Tool, error) {
	return nil, errors.New("registry unreachable")
}

type nilResolver struct{}

func (nilResolver) Resolve(context.Context, string) (tool.Tool, error) { return nil, nil }

// toolSpec is what a request gives Resolve: tools and names of tools.
type toolSpec struct {
	Tools     []tool.Tool
	ToolNames []string
}

func TestResolve(t *testing.T) {
	a, b, c, d := echoTool("a"), echoTool("b"), echoTool("c"), echoTool("d")
	static, err := tool.NewStaticResolver(c, d, echoTool("a"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		resolver tool.Resolver
		opts     *toolSpec
		want     []string // tool names in order
		lookups  []string
		err      string
		is       error
	}{
		{name: "nil options"},
		{name: "no tools", opts: &toolSpec{}},
		{name: "tools only", opts: &toolSpec{Tools: []tool.Tool{b, a}}, want: []string{"b", "a"}},
		{name: "tools then names", resolver: static, opts: &toolSpec{Tools: []tool.Tool{b, a}, ToolNames: []string{"d", "c"}},
			want: []string{"b", "a", "d", "c"}, lookups: []string{"d", "c"}},
		{name: "name of a given tool is not resolved again", resolver: static,
			opts: &toolSpec{Tools: []tool.Tool{a}, ToolNames: []string{"a", "c", "c"}},
			want: []string{"a", "c"}, lookups: []string{"c"}},
		{name: "duplicate tools", opts: &toolSpec{Tools: []tool.Tool{a, b, echoTool("b")}},
			err: `toolcall: duplicate tool name "b"`, is: ErrDuplicateTool},
		{name: "resolved tool duplicates a given one", resolver: aliasResolver{echoTool("a")},
			opts: &toolSpec{Tools: []tool.Tool{a}, ToolNames: []string{"alias"}},
			err:  `toolcall: duplicate tool name "a" (resolved from "alias")`, is: ErrDuplicateTool},
		{name: "unknown name", resolver: static, opts: &toolSpec{ToolNames: []string{"zzz"}},
			err: `toolcall: resolving tool "zzz": tool not found: "zzz"`, is: tool.ErrNotFound},
		{name: "no resolver", opts: &toolSpec{ToolNames: []string{"c"}},
			err: `toolcall: tool names given but no resolver configured (resolving "c")`, is: ErrNoResolver},
		{name: "resolver error", resolver: brokenResolver{}, opts: &toolSpec{ToolNames: []string{"c"}},
			err: `toolcall: resolving tool "c": registry unreachable`},
		{name: "resolver returns nil", resolver: nilResolver{}, opts: &toolSpec{ToolNames: []string{"c"}},
			err: `toolcall: resolving tool "c": the resolver returned no tool`},
		{name: "nil tool", opts: &toolSpec{Tools: []tool.Tool{a, nil}}, err: "toolcall: tool 1 is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cr *countingResolver
			cfg := Config{}
			if tt.resolver != nil {
				cr = &countingResolver{Resolver: tt.resolver}
				cfg.Resolver = cr
			}
			m := New(cfg)
			var given []tool.Tool
			var toolNames []string
			if tt.opts != nil {
				given, toolNames = tt.opts.Tools, tt.opts.ToolNames
			}
			tools, err := m.Resolve(context.Background(), given, toolNames)
			defs, derr := m.Definitions(context.Background(), given, toolNames)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("Resolve error = %v, want %q", err, tt.err)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("error %v does not match %v", err, tt.is)
				}
				if derr == nil || derr.Error() != tt.err || tools != nil || defs != nil {
					t.Errorf("Definitions = %v, %v", defs, derr)
				}
				return
			}
			if err != nil || derr != nil {
				t.Fatal(err, derr)
			}
			var names, defNames []string
			for _, tl := range tools {
				names = append(names, tl.Definition().Name)
			}
			for _, d := range defs {
				defNames = append(defNames, d.Name)
			}
			if !slices.Equal(names, tt.want) || !slices.Equal(defNames, tt.want) {
				t.Errorf("Resolve = %v, Definitions = %v, want %v", names, defNames, tt.want)
			}
			if cr != nil && tt.lookups != nil {
				// Resolve and Definitions each looked the names up once.
				want := append(slices.Clone(tt.lookups), tt.lookups...)
				if !slices.Equal(cr.lookups, want) {
					t.Errorf("resolver lookups %v, want %v", cr.lookups, want)
				}
			}
		})
	}
}

func TestResolveManyTools(t *testing.T) {
	// Past a handful of tools the name set switches to a map; duplicates are still caught.
	var tools []tool.Tool
	for i := range 40 {
		tools = append(tools, echoTool(fmt.Sprintf("t%02d", i)))
	}
	m := New(Config{})
	got, err := m.Resolve(context.Background(), tools, nil)
	if err != nil || len(got) != 40 {
		t.Fatalf("Resolve = %d tools, %v", len(got), err)
	}
	_, err = m.Resolve(context.Background(), append(slices.Clone(tools), echoTool("t33")), nil)
	if !errors.Is(err, ErrDuplicateTool) || err.Error() != `toolcall: duplicate tool name "t33"` {
		t.Errorf("duplicate among 41 tools: %v", err)
	}
	// Execute finds tools by name in a large set too.
	p := &chat.Prompt{Options: &chat.Options{Tools: tools}}
	res, err := m.Execute(context.Background(), p, response(call("1", "t37", "{}"), call("2", "t99", "{}")))
	if err != nil {
		t.Fatal(err)
	}
	rs := res.ToolResults()
	if rs[0].Content != "t37:{}" || rs[0].IsError || !rs[1].IsError {
		t.Errorf("results %+v", rs)
	}
}
