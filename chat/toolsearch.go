package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// ToolSearchKind says who searches a request's deferred tools, and how.
type ToolSearchKind string

// The kinds of native tool search. A provider that does not offer the kind asked for refuses the
// request with an error wrapping [ErrToolSearchUnsupported], before sending anything.
const (
	// ToolSearchServer has the provider search with its own default search: Anthropic's BM25
	// tool search tool, OpenAI's hosted tool search.
	ToolSearchServer ToolSearchKind = "server"
	// ToolSearchRegex has the provider search with regular expressions the model writes
	// (Anthropic's regex tool search tool).
	ToolSearchRegex ToolSearchKind = "regex"
	// ToolSearchBM25 has the provider rank the tools by BM25 against natural-language queries
	// (Anthropic's BM25 tool search tool).
	ToolSearchBM25 ToolSearchKind = "bm25"
	// ToolSearchClient has the model search with a tool of the request that the caller runs
	// ([ToolSearch.Tool]): the caller's own search, with the tools it finds loaded the provider's
	// way (Anthropic's tool_reference blocks, OpenAI's client-executed tool search).
	ToolSearchClient ToolSearchKind = "client"
)

// ToolSearch asks the provider to send the request's tools deferred: the model sees the loaded
// tools and a search, and a deferred tool's definition reaches it only once a search found it.
// The tools list stays the same from request to request, so a prompt cache holds across a tool
// loop, and a catalog of thousands of tools costs only what the model finds.
//
// Deferred tools are called and answered like any other. What the provider's own search did
// comes back in [Message.ServerTools] and must stay in the conversation, which the tool loop
// does; with ToolSearchClient the search tool's calls and results travel as the provider's own
// tool-search items instead of ordinary ones, so its result must be [ToolSearchResult]'s.
type ToolSearch struct {
	// Kind is the search; it must be one of the ToolSearch constants.
	Kind ToolSearchKind
	// Loaded names the tools of Options.Tools sent in full from the first request: the few the
	// model needs all the time. Every other tool is deferred but the search tool (Tool) and the
	// one Options.ToolChoice names. Names of no tool of the request are ignored.
	Loaded []string
	// Tool names the search tool of ToolSearchClient, one of Options.Tools; it must be empty for
	// the other kinds.
	Tool string
}

// ErrToolSearchUnsupported is wrapped by the error of a request asking for a tool search its
// provider does not offer. The request is refused before anything is sent.
var ErrToolSearchUnsupported = errors.New("native tool search is not supported")

// RefuseToolSearch returns, when o asks for a tool search, an error wrapping
// [ErrToolSearchUnsupported] that names the provider; nil otherwise. Providers without native
// tool search call it first, so that deferred tools are never silently sent in full.
func RefuseToolSearch(provider string, o *Options) error {
	if o == nil || o.ToolSearch == nil {
		return nil
	}
	return fmt.Errorf("%s: tool search %q: %w by this provider", provider, o.ToolSearch.Kind, ErrToolSearchUnsupported)
}

// Check reports settings no provider can honour: an unknown kind, or a search tool missing from
// tools (ToolSearchClient) or set for another kind.
func (s *ToolSearch) Check(tools []tool.Tool) error {
	switch s.Kind {
	case ToolSearchServer, ToolSearchRegex, ToolSearchBM25:
		if s.Tool != "" {
			return fmt.Errorf("tool search %q: Tool %q is only for %q", s.Kind, s.Tool, ToolSearchClient)
		}
	case ToolSearchClient:
		if s.Tool == "" {
			return fmt.Errorf("tool search %q: Tool must name the search tool", s.Kind)
		}
		if !slices.ContainsFunc(tools, func(t tool.Tool) bool { return t != nil && t.Definition().Name == s.Tool }) {
			return fmt.Errorf("tool search %q: the search tool %q is none of the request's tools", s.Kind, s.Tool)
		}
	default:
		return fmt.Errorf("tool search: unknown kind %q", s.Kind)
	}
	return nil
}

// Deferred reports whether the tool named is sent deferred under s, in a request whose
// ToolChoice is choice.
func (s *ToolSearch) Deferred(name, choice string) bool {
	return s != nil && name != s.Tool && name != choice && !slices.Contains(s.Loaded, name)
}

// Server reports whether the provider searches itself (every kind but ToolSearchClient).
func (s *ToolSearch) Server() bool { return s != nil && s.Kind != ToolSearchClient }

// Clone returns a copy of s whose Loaded can be changed without affecting s.
func (s *ToolSearch) Clone() *ToolSearch {
	if s == nil {
		return nil
	}
	c := *s
	c.Loaded = cloneSlice(s.Loaded)
	return &c
}

// toolSearchResult is the result of a client tool search.
type toolSearchResult struct {
	Tools []string `json:"tools"`
}

// ToolSearchResult returns the result a client tool search ([ToolSearchClient]) answers with:
// the JSON object {"tools": [...]} naming the deferred tools it loads, found first. A provider
// sends it as its own search result (tool references, loaded definitions), never as text; no
// tools found is an empty list.
func ToolSearchResult(names ...string) string {
	if names == nil {
		names = []string{}
	}
	b, _ := json.Marshal(toolSearchResult{Tools: names})
	return string(b)
}

// ParseToolSearchResult reads a result made by [ToolSearchResult]: the names of the tools it
// loads.
func ParseToolSearchResult(content string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	var r struct {
		Tools *[]string `json:"tools"`
	}
	if err := dec.Decode(&r); err != nil || r.Tools == nil || dec.More() {
		return nil, fmt.Errorf(`the result of a client tool search is not {"tools": [names]}: %.100q`, content)
	}
	for _, n := range *r.Tools {
		if n == "" {
			return nil, errors.New("the result of a client tool search names a tool with an empty name")
		}
	}
	return *r.Tools, nil
}

// ServerTool is one step of a tool the provider ran itself while answering, its tool search: the
// model's call of the tool, or the tool's result. It is kept in the assistant message because the
// provider needs it back, unchanged, to continue the conversation. Only the provider that
// produced it sends it back, and only to a request that asks for its own tool search; others
// drop it.
type ServerTool struct {
	// Provider is the provider that produced it ("anthropic", "openai").
	Provider string `json:"provider"`
	// ID identifies the call; a result carries the ID of its call where the provider links them.
	ID string `json:"id,omitempty"`
	// Name is the server tool's name on a call ("tool_search_tool_regex", "tool_search").
	Name string `json:"name,omitempty"`
	// Result marks the tool's result, as against the model's call.
	Result bool `json:"result,omitempty"`
	// Arguments is the JSON the model called the tool with, on a call.
	Arguments string `json:"arguments,omitempty"`
	// Tools names the tools a tool-search result loaded, by the names of [Options.Tools].
	Tools []string `json:"tools,omitempty"`
	// Data is the provider's own block or item, as it came.
	Data json.RawMessage `json:"data,omitempty"`
}
