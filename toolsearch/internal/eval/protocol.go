package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// Protocol is how a request becomes searches: the queries a model sends for it, and how their
// results become one ranking.
type Protocol struct {
	Name string
	// Queries forms the queries from the request text.
	Queries func(request string) []string
	// Merge merges the rankings of the queries into k tools; nil means toolsearch.Merge.
	Merge func(k int, results ...[]toolsearch.Hit) []toolsearch.Hit
	// Prerequisites brings along the prerequisites of the tools found
	// (toolsearch.Prerequisites.BringAlong), as the search tool does.
	Prerequisites bool
	// Companions, when set, brings along after each tool found the tools it returns for it,
	// given the catalog (before the ranking is cut to the depth scored).
	Companions func(catalog []tool.Definition) func(name string) []string
}

var (
	// wholeRequest sends the request as it is, as one query: the search tool before it took
	// several queries.
	wholeRequest = Protocol{Name: "one query: the whole request", Queries: func(r string) []string { return []string{r} }}
	// perCapability sends one query per capability the request names, merged by toolsearch.Merge,
	// with the prerequisites of the tools found brought along: what the search tool does.
	perCapability = Protocol{Name: "one query per capability (the search tool: toolsearch.Merge, prerequisites)", Queries: capabilityQueries, Prerequisites: true}
	// withoutPrerequisites is perCapability without the prerequisites: the search tool before
	// it brought them along.
	withoutPrerequisites = Protocol{Name: "per capability, without prerequisites", Queries: capabilityQueries}
)

// search ranks the tools for a request: its queries searched and merged by toolsearch.SearchAll,
// as the search tool does, each query for as many tools as the search tool returns with its
// default of toolsearch.DefaultMaxResults a query (but at least k, the depth scored); a custom
// Merge merges the same searches. pre, when the protocol brings prerequisites along, are those
// of the catalog searched.
func (p Protocol) search(s Searcher, pre *toolsearch.Prerequisites, request string, k int) ([]string, error) {
	return p.searchWith(s, nil, pre, request, k)
}

// searchWith is search, with the companions of each tool found when along is set.
func (p Protocol) searchWith(s Searcher, along func(string) []string, pre *toolsearch.Prerequisites, request string, k int) ([]string, error) {
	qs := p.Queries(request)
	limit := max(k, min(toolsearch.DefaultMaxResults*len(qs), toolsearch.MaxSearchResults))
	req := toolsearch.SearchRequest{Session: "eval", MaxResults: limit}
	merged, each, err := toolsearch.SearchAll(context.Background(), searcherIndex{s}, req, qs)
	if err != nil {
		return nil, err
	}
	if p.Merge != nil {
		merged = p.Merge(limit, each...)
	}
	if p.Prerequisites {
		// What the search tool returns when it returns k tools: the prerequisites take the
		// last of the k places.
		merged = pre.BringAlong(merged, k)
	}
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] && len(out) < k {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, h := range merged {
		add(h.Name)
		if along != nil {
			for _, c := range along(h.Name) {
				add(c)
			}
		}
	}
	return out, nil
}

// namespaceCompanions brings along the other tools of a tool's namespace (what comes before the
// last dot of its name: calendar.create and calendar.list), for namespaces of at most max tools.
func namespaceCompanions(max int) func([]tool.Definition) func(string) []string {
	return func(catalog []tool.Definition) func(string) []string {
		ns := func(name string) string {
			if i := strings.LastIndexByte(name, '.'); i > 0 {
				return name[:i]
			}
			return ""
		}
		groups := map[string][]string{}
		for _, d := range catalog {
			if n := ns(d.Name); n != "" {
				groups[n] = append(groups[n], d.Name)
			}
		}
		return func(name string) []string {
			if g := groups[ns(name)]; len(g) <= max {
				return g
			}
			return nil
		}
	}
}

// searcherIndex serves a built system's searches as a toolsearch.Index.
type searcherIndex struct{ search Searcher }

func (x searcherIndex) IndexTools(context.Context, string, []tool.Definition) error { return nil }
func (x searcherIndex) Clear(context.Context, string) error                         { return nil }
func (x searcherIndex) Search(_ context.Context, req toolsearch.SearchRequest) ([]toolsearch.Hit, error) {
	return x.search(req.Query, req.MaxResults)
}

// protocols are the ways of searching compared in the multi-tool table: the search tool before
// it took several queries and now, without the prerequisites it brings along, the merges
// toolsearch.Merge was chosen over and the namespaces not adopted.
func protocols() []Protocol {
	return []Protocol{wholeRequest, perCapability, withoutPrerequisites,
		{Name: "per capability, plain round-robin", Queries: capabilityQueries, Merge: mergeRoundRobin},
		{Name: "per capability, union by score", Queries: capabilityQueries, Merge: mergeByScore},
		{Name: "per capability, with the tools of the same namespace (of at most 3)", Queries: capabilityQueries, Prerequisites: true, Companions: namespaceCompanions(3)},
	}
}

// mergeRoundRobin takes every query's best tool, then every query's second best, in the order
// of the queries.
func mergeRoundRobin(k int, results ...[]toolsearch.Hit) []toolsearch.Hit {
	var out []toolsearch.Hit
	seen := map[string]bool{}
	for rank := 0; len(out) < k; rank++ {
		more := false
		for _, r := range results {
			if rank < len(r) {
				more = true
				if h := r[rank]; !seen[h.Name] && len(out) < k {
					seen[h.Name] = true
					out = append(out, h)
				}
			}
		}
		if !more {
			break
		}
	}
	return out
}

// mergeByScore ranks every query's tools together by score.
func mergeByScore(k int, results ...[]toolsearch.Hit) []toolsearch.Hit {
	var all []toolsearch.Hit
	for _, r := range results {
		all = append(all, r...)
	}
	slices.SortStableFunc(all, func(a, b toolsearch.Hit) int { return cmp.Compare(b.Score, a.Score) })
	var out []toolsearch.Hit
	seen := map[string]bool{}
	for _, h := range all {
		if !seen[h.Name] && len(out) < k {
			seen[h.Name] = true
			out = append(out, h)
		}
	}
	return out
}

// multiTable prints, for the public indexes, how each protocol does on requests that need
// several tools and on those that need one.
func multiTable(w io.Writer, sets []*Dataset, syss []System) error {
	type row struct {
		name string
		m    []Metrics
	}
	var rows []row
	for _, s := range syss {
		if !s.Public {
			continue
		}
		for _, p := range protocols() {
			r := row{name: s.Name + ", " + p.Name}
			for _, ds := range sets {
				m, err := evaluateWith(s, ds, p)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", r.name, ds.Name, err)
				}
				r.m = append(r.m, m)
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	table := func(title string, cell func(Metrics) string) {
		fmt.Fprintf(w, "\n## %s\n\n", title)
		tableHead(w, "system, queries", sets)
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |", r.name)
			for _, m := range r.m {
				fmt.Fprintf(w, " %s |", cell(m))
			}
			fmt.Fprintln(w)
		}
	}
	table("Requests needing several tools: all in the top 10", func(m Metrics) string { return share(m, m.All10) })
	table("Requests needing several tools: all in the top 5", func(m Metrics) string { return share(m, m.All5) })
	table("Requests needing one tool: nDCG@10", func(m Metrics) string {
		if m.Single == 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f", m.SingleNDCG10)
	})
	table("All requests: nDCG@10", func(m Metrics) string { return fmt.Sprintf("%.1f", m.NDCG10) })
	table("All requests: R@10", func(m Metrics) string { return fmt.Sprintf("%.1f", m.R10) })
	return nil
}
