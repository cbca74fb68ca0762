package toolsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// SearchToolName is the name of the search tool the [Advisor] gives the model.
const SearchToolName = "toolSearchTool"

// MaxSearchResults caps the tools one call of the search tool returns, whatever maxResults and
// however many queries the model sends, so that a search cannot pull the whole catalog into the
// next request.
const MaxSearchResults = 20

// MaxSearchQueries caps the queries of one call of the search tool: one per capability a request
// needs, and few requests need more.
const MaxSearchQueries = 10

// DefaultSearchToolDescription describes the search tool to the model when the index takes
// words ([KeywordIndex], [VectorIndex]). It asks for one query per capability: a query that
// names several capabilities at once finds the tools of the one it says most about.
const DefaultSearchToolDescription = "Search the catalog of tools you can use. Only the tools found by this search " +
	"are available to you. Send one query per capability the task needs, each a few keywords saying what the " +
	"tool does, without the values you will pass it: for \"email me tomorrow's forecast for Oslo\" send " +
	"[\"weather forecast city\", \"send email\"]. The tools found become callable in your next step. Search " +
	"again with other words if none fits."

// RegexSearchToolDescription describes the search tool to the model when the index takes
// regular expressions ([RegexIndex]).
const RegexSearchToolDescription = "Search the catalog of tools you can use. Only the tools found by this search " +
	"are available to you. Send one query per capability the task needs; a query is a regular expression (RE2 " +
	"syntax, case-insensitive) matched against tool names first, then descriptions, for example " +
	"\"weather|forecast\" or \"^github_.*issue\". The tools found become callable in your next step."

// DefaultSystemPrompt is appended to the system prompt of every request of a turn, to tell the
// model how it gets its tools.
const DefaultSystemPrompt = "Your tools are not listed up front: call " + SearchToolName + " to find the tools " +
	"you need, with one query per capability, then call the tools it found."

// SearchToolDefinition returns the definition of the search tool with the given description
// (DefaultSearchToolDescription when empty): the one definition the model sees before it
// searches. It takes queries, one per capability, and maxResults, the tools to return for each;
// a lone query is accepted too.
func SearchToolDefinition(description string) tool.Definition {
	if description == "" {
		description = DefaultSearchToolDescription
	}
	return tool.Definition{
		Name:        SearchToolName,
		Description: description,
		InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"queries":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":%d,`+
			`"description":"One query per capability you need, each saying what the tool does."},`+
			`"query":{"type":"string","description":"A single query; same as queries with one item."},`+
			`"maxResults":{"type":"integer","minimum":1,"maximum":%d,"description":"How many tools to return for each query at most."}},`+
			`"additionalProperties":false}`, MaxSearchQueries, MaxSearchResults)),
	}
}

// searchTool is the search tool of one turn: it searches the session's index, keeps the tools
// it found for the rest of the turn, and tells the model their names.
type searchTool struct {
	def        tool.Definition
	index      Index
	session    string
	maxResults int
	lookup     func(name string) (tool.Tool, bool) // the turn's searchable tools by name
	// reindex indexes the turn's tools again, for a session evicted during the turn.
	reindex func(ctx context.Context) error
	// native, when on and of kind chat.ToolSearchClient, has the provider load the tools found:
	// the result names them for it ([chat.ToolSearchResult]) instead of telling the model.
	native *nativeState
	// prereqs, when set, returns the prerequisites of the turn's tools, brought along with the
	// tools found.
	prereqs func() *Prerequisites

	mu    sync.Mutex
	found []string // in order of discovery, no duplicates
}

type searchArgs struct {
	Queries    []string `json:"queries"`
	Query      string   `json:"query"`
	MaxResults int      `json:"maxResults"`
}

func (s *searchTool) Definition() tool.Definition { return s.def }

// Metadata declares the search read-only and closed-world: it reads the index and changes nothing
// but the tools offered in the conversation, so approval policies let it run.
func (s *searchTool) Metadata() tool.Metadata {
	closed := false
	return tool.Metadata{ReadOnly: true, OpenWorld: &closed}
}

// Call runs one search: each query on its own, the results merged by [Merge], the prerequisites
// of the tools kept brought along ([Prerequisites.BringAlong]). Bad arguments and bad queries
// are errors the model reads and can correct.
func (s *searchTool) Call(ctx context.Context, args string) (string, error) {
	queries, perQuery, err := parseSearchArgs(args, s.maxResults)
	if err != nil {
		return "", err
	}
	// Each query is searched for the whole limit: where another query found the same tools
	// first, its next ones fill its share.
	limit := min(perQuery*len(queries), MaxSearchResults)
	// The session holds the turn's tools and no others: no filter is needed, and turnIndex
	// makes sure of it.
	req := SearchRequest{Session: s.session, MaxResults: limit}
	ix := turnIndex{s.index, s.lookup}
	merged, results, err := SearchAll(ctx, ix, req, queries)
	if errors.Is(err, ErrUnknownSession) && s.reindex != nil {
		if err = s.reindex(ctx); err == nil {
			merged, results, err = SearchAll(ctx, ix, req, queries)
		}
	}
	if err != nil {
		// The model sees the failure and may retry; a cancelled turn ends as cancelled.
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("search failed: %w", err)
	}
	var along []broughtAlong
	if s.prereqs != nil {
		merged, along = s.prereqs().bringAlong(merged, limit)
	}
	names := make([]string, len(merged))
	for i, h := range merged {
		names[i] = h.Name
	}
	s.add(names)
	if n := s.native; n != nil && n.kind == chat.ToolSearchClient && n.on.Load() {
		return chat.ToolSearchResult(names...), nil
	}
	return report(queries, results, names, along), nil
}

// parseSearchArgs reads the search tool's arguments: the queries, trimmed, blanks and repeats
// left out, and the tools to return for each query.
func parseSearchArgs(args string, defaultPerQuery int) (queries []string, perQuery int, err error) {
	var a searchArgs
	dec := json.NewDecoder(strings.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, 0, fmt.Errorf("invalid arguments: %w; send {\"queries\": [\"...\"]}", err)
	}
	seen := make(map[string]bool, len(a.Queries)+1)
	for _, q := range append(a.Queries, a.Query) {
		q = strings.TrimSpace(q)
		if k := strings.ToLower(q); q != "" && !seen[k] {
			seen[k] = true
			queries = append(queries, q)
		}
	}
	if len(queries) == 0 {
		return nil, 0, errors.New("no query: send one query per capability you need, each a few keywords")
	}
	if len(queries) > MaxSearchQueries {
		return nil, 0, fmt.Errorf("%d queries: send at most %d, one per capability", len(queries), MaxSearchQueries)
	}
	perQuery = defaultPerQuery
	if a.MaxResults > 0 {
		perQuery = min(a.MaxResults, MaxSearchResults)
	}
	return queries, perQuery, nil
}

// turnIndex finds the turn's tools only, even if its index, shared with other code, holds more
// and ignores the filter.
type turnIndex struct {
	Index
	lookup func(name string) (tool.Tool, bool)
}

func (t turnIndex) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	hits, err := t.Index.Search(ctx, req)
	out := hits[:0]
	for _, h := range hits {
		if _, ok := t.lookup(h.Name); ok {
			out = append(out, h)
		}
	}
	return out, err
}

// report tells the model what a search found: the tools' names, with several queries which
// query found which, so that it can search again for a capability that found nothing, and why
// the prerequisites brought along came.
func report(queries []string, results [][]Hit, names []string, along []broughtAlong) string {
	var b strings.Builder
	if len(queries) == 1 {
		switch len(names) {
		case 0:
			return fmt.Sprintf("No tool found for %q. Search again with other words.", queries[0])
		case 1:
			b.WriteString("Found 1 tool, callable from your next step: " + names[0])
		default:
			fmt.Fprintf(&b, "Found %d tools, callable from your next step: %s", len(names), strings.Join(names, ", "))
		}
		writeAlong(&b, along)
		return b.String()
	}
	if len(names) == 0 {
		return "No tool found for any query. Search again with other words."
	}
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		taken[n] = false // returned, not yet listed
	}
	if len(names) == 1 {
		b.WriteString("Found 1 tool, callable from your next step:")
	} else {
		fmt.Fprintf(&b, "Found %d tools, callable from your next step:", len(names))
	}
	for i, q := range queries {
		fmt.Fprintf(&b, "\n%q: ", q)
		var mine []string
		for _, h := range results[i] {
			if listed, ok := taken[h.Name]; ok && !listed {
				taken[h.Name] = true
				mine = append(mine, h.Name)
			}
		}
		switch {
		case len(results[i]) == 0:
			b.WriteString("nothing found; search again with other words")
		case len(mine) == 0:
			b.WriteString("the same tools as above")
		default:
			b.WriteString(strings.Join(mine, ", "))
		}
	}
	writeAlong(&b, along)
	return b.String()
}

// writeAlong says, for each tool brought along, which tool needs what it returns.
func writeAlong(b *strings.Builder, along []broughtAlong) {
	for _, a := range along {
		fmt.Fprintf(b, "\n%s requires %s, which %s returns.", a.For, a.Input, a.Tool)
	}
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
		if t, ok := s.lookup(n); ok {
			out = append(out, t)
		}
	}
	return out
}
