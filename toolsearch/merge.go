package toolsearch

import (
	"cmp"
	"context"
	"slices"
)

// Merge merges the results of several searches of one index, one search per query, into at
// most k tools, each once. It goes in rounds: the first round takes every search's best tool,
// the second every search's second best, and so on. Within a round, tools found by several of
// the searches come first, then better scores: a tool's weight is the sum of its scores in the
// searches that found it. A tool scoring less than half its search's best waits until the
// strong tools of every search are in: that search has found what it looked for, and the places
// go to searches still undecided between close matches.
//
// A request that needs several capabilities is searched once per capability, and a plain union
// by score lets the query with the highest scores (often merely the longest) take every place.
// Taking turns gives each capability its best tools whatever the scale of its scores; ordering
// each round keeps a tool that several queries agree on, or a strong match, ahead of a weak one.
//
// A merged hit keeps the score it had in the search it was taken from.
func Merge(k int, results ...[]Hit) []Hit {
	if k <= 0 {
		return nil
	}
	if len(results) == 1 {
		return slices.Clone(results[0][:min(k, len(results[0]))])
	}
	total := 0
	for _, r := range results {
		total += len(r)
	}
	weight := make(map[string]float64, total)
	for _, r := range results {
		for _, h := range r {
			weight[h.Name] += h.Score
		}
	}
	// strong[i] is how many of search i's hits are strong: its best, and those scoring at least
	// half as much (hits are best first).
	strong := make([]int, len(results))
	for i, r := range results {
		for strong[i] < len(r) && (strong[i] == 0 || r[strong[i]].Score >= r[0].Score/2) {
			strong[i]++
		}
	}
	out := make([]Hit, 0, min(k, total))
	round := make([]Hit, 0, len(results))
	take := func(rank int, weak bool) bool {
		round = round[:0]
		for i, r := range results {
			j := rank
			if weak {
				j += strong[i]
			} else if j >= strong[i] {
				continue
			}
			if j < len(r) {
				round = append(round, r[j])
			}
		}
		slices.SortStableFunc(round, func(a, b Hit) int { return cmp.Compare(weight[b.Name], weight[a.Name]) })
		for _, h := range round {
			if _, taken := weight[h.Name]; !taken || len(out) == k {
				continue
			}
			delete(weight, h.Name) // taken: later rounds skip it
			out = append(out, h)
		}
		return len(round) > 0
	}
	for _, weak := range []bool{false, true} {
		for rank := 0; len(out) < k && take(rank, weak); rank++ {
		}
	}
	return out
}

// SearchAll searches the session's tools once per query, each search for up to
// req.MaxResults tools, and merges the results with [Merge] into at most req.MaxResults tools.
// req.Query is ignored. It also returns each query's own results, in the order of queries. It
// stops at the first failed search.
//
// This is the search of the [Advisor]'s search tool, for code that offers its own: the model
// sends one query per capability it needs, and each capability gets its share of the results.
func SearchAll(ctx context.Context, ix Index, req SearchRequest, queries []string) (merged []Hit, each [][]Hit, err error) {
	each = make([][]Hit, len(queries))
	for i, q := range queries {
		req.Query = q
		if each[i], err = ix.Search(ctx, req); err != nil {
			return nil, nil, err
		}
	}
	return Merge(req.limit(), each...), each, nil
}
