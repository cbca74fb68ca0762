package toolsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/wield-ai/wield/tool"
)

// SearchToolName is the name of the search tool the [Advisor] gives the model.
const SearchToolName = "toolSearchTool"

// MaxSearchResults caps the maxResults a model may ask of one search, so that a search cannot
// pull the whole catalog into the next request.
const MaxSearchResults = 20

// DefaultSearchToolDescription describes the search tool to the model when the index takes
// words ([KeywordIndex], [VectorIndex]).
const DefaultSearchToolDescription = "Search the catalog of tools you can use. Only the tools found by this search " +
	"are available to you. Describe the capability you need in a few keywords (for example \"weather forecast " +
	"city\"); the tools found become callable in your next step. Search again with other words if none fits."

// RegexSearchToolDescription describes the search tool to the model when the index takes
// regular expressions ([RegexIndex]).
const RegexSearchToolDescription = "Search the catalog of tools you can use. Only the tools found by this search " +
	"are available to you. The query is a regular expression (RE2 syntax, case-insensitive) matched against tool " +
	"names first, then descriptions, for example \"weather|forecast\" or \"^github_.*issue\"; the tools found " +
	"become callable in your next step."

// DefaultSystemPrompt is appended to the system prompt of every request of a turn, to tell the
// model how it gets its tools.
const DefaultSystemPrompt = "Your tools are not listed up front: call " + SearchToolName + " to find the tools " +
	"you need, then call the tools it found."

// SearchToolDefinition returns the definition of the search tool with the given description
// (DefaultSearchToolDescription when empty): the one definition the model sees before it
// searches.
func SearchToolDefinition(description string) tool.Definition {
	if description == "" {
		description = DefaultSearchToolDescription
	}
	return tool.Definition{
		Name:        SearchToolName,
		Description: description,
		InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"query":{"type":"string","description":"What the tool you need does."},`+
			`"maxResults":{"type":"integer","minimum":1,"maximum":%d,"description":"How many tools to return at most."}},`+
			`"required":["query"],"additionalProperties":false}`, MaxSearchResults)),
	}
}

// searchTool is the search tool of one turn: it searches the session's index, keeps the tools
// it found for the rest of the turn, and tells the model their names.
type searchTool struct {
	def        tool.Definition
	index      Index
	session    string
	maxResults int
	catalog    map[string]tool.Tool // the turn's searchable tools by name
	filter     func(tool.Definition) bool
	// reindex indexes the turn's tools again, for a session evicted during the turn.
	reindex func(ctx context.Context) error

	mu    sync.Mutex
	found []string // in order of discovery, no duplicates
}

type searchArgs struct {
	Query      string `json:"query"`
	MaxResults int    `json:"maxResults"`
}

func (s *searchTool) Definition() tool.Definition { return s.def }
func (s *searchTool) Metadata() tool.Metadata     { return tool.Metadata{} }

// Call runs one search. Bad arguments and bad queries are errors the model reads and can correct.
func (s *searchTool) Call(ctx context.Context, args string) (string, error) {
	var a searchArgs
	dec := json.NewDecoder(strings.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", fmt.Errorf("invalid arguments: %w; send {\"query\": \"...\"}", err)
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return "", errors.New("query is empty: describe the tool you need")
	}
	k := s.maxResults
	if a.MaxResults > 0 {
		k = min(a.MaxResults, MaxSearchResults)
	}
	req := SearchRequest{Session: s.session, Query: a.Query, MaxResults: k, Filter: s.keep}
	hits, err := s.index.Search(ctx, req)
	if errors.Is(err, ErrUnknownSession) && s.reindex != nil {
		if err = s.reindex(ctx); err == nil {
			hits, err = s.index.Search(ctx, req)
		}
	}
	if err != nil {
		// The model sees the failure and may retry; a cancelled turn ends as cancelled.
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("search failed: %w", err)
	}
	var names []string
	for _, h := range hits {
		// An index shared with other code may know tools this turn does not have.
		if _, ok := s.catalog[h.Name]; ok {
			names = append(names, h.Name)
		}
	}
	s.add(names)
	if len(names) == 0 {
		return fmt.Sprintf("No tool found for %q. Search again with other words.", a.Query), nil
	}
	if len(names) == 1 {
		return "Found 1 tool, callable from your next step: " + names[0], nil
	}
	return fmt.Sprintf("Found %d tools, callable from your next step: %s", len(names), strings.Join(names, ", ")), nil
}

func (s *searchTool) keep(d tool.Definition) bool {
	if _, ok := s.catalog[d.Name]; !ok {
		return false
	}
	return s.filter == nil || s.filter(d)
}

func (s *searchTool) add(names []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
outer:
	for _, n := range names {
		for _, f := range s.found {
			if f == n {
				continue outer
			}
		}
		s.found = append(s.found, n)
	}
}

// discovered returns the tools found so far in the turn, in order of discovery.
func (s *searchTool) discovered() []tool.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]tool.Tool, 0, len(s.found))
	for _, n := range s.found {
		out = append(out, s.catalog[n])
	}
	return out
}
