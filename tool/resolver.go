package tool

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotFound is returned by a [Resolver] that has no tool of the given name.
var ErrNotFound = errors.New("tool not found")

// Resolver finds a tool by name, for requests that name tools instead of passing them.
// Resolve returns an error wrapping [ErrNotFound] when it has no such tool; any other error
// (a remote registry that cannot be reached, say) stops resolution.
type Resolver interface {
	Resolve(ctx context.Context, name string) (Tool, error)
}

// StaticResolver resolves names from a fixed set of tools.
type StaticResolver struct {
	tools map[string]Tool
}

// NewStaticResolver returns a resolver over tools. Two tools with one name are an error.
func NewStaticResolver(tools ...Tool) (*StaticResolver, error) {
	r := &StaticResolver{tools: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		name := t.Definition().Name
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("tool: duplicate tool name %q", name)
		}
		r.tools[name] = t
	}
	return r, nil
}

// Resolve returns the tool named name.
func (r *StaticResolver) Resolve(_ context.Context, name string) (Tool, error) {
	if t, ok := r.tools[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
}

// Resolvers is a chain of resolvers; the first that knows a name wins.
type Resolvers []Resolver

// Resolve asks each resolver in order until one has the tool.
func (rs Resolvers) Resolve(ctx context.Context, name string) (Tool, error) {
	for _, r := range rs {
		t, err := r.Resolve(ctx, name)
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
}
