// Command eval measures the retrieval quality of the tool indexes on public tool-retrieval data
// and the tokens a search tool saves, and prints both as Markdown tables. Requests are searched
// whole, as one query, and, for the public indexes, the way the search tool is meant to be
// used: one query per capability (formed from the request text by capabilityQueries), merged
// by toolsearch.Merge, with the prerequisites of the tools found brought along
// (toolsearch.Prerequisites).
//
//	go run ./toolsearch/internal/eval -data ../shared/data
//
// The data directory holds toolret-subsets/{apigen,apibank}, bfcl/ and seal-tools/ in the layout
// of their sources. The data is read at run time and never copied into the repository (the
// ToolRet subsets carry no license for redistribution).
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

func main() {
	var (
		dir      = flag.String("data", "", "directory of the evaluation data (required)")
		only     = flag.String("datasets", "", "comma-separated datasets to evaluate (default: all)")
		match    = flag.String("systems", "", "evaluate only systems whose name contains this")
		tune     = flag.String("tune", "", "grid-search the keyword index's parameters on this dataset instead")
		tokens   = flag.Bool("tokens", true, "print the token table")
		maxQuery = flag.Int("queries", 0, "evaluate at most this many queries per dataset (0: all)")
	)
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "eval: -data is required")
		flag.Usage()
		os.Exit(2)
	}
	cfg := config{dir: *dir, match: *match, maxQueries: *maxQuery, tokens: *tokens}
	if *only != "" {
		cfg.datasets = strings.Split(*only, ",")
	}
	var err error
	if *tune != "" {
		err = runTune(os.Stdout, *dir, *tune)
	} else {
		err = run(os.Stdout, cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

type config struct {
	dir        string
	datasets   []string
	match      string
	maxQueries int
	tokens     bool
}

// run loads each dataset, evaluates every system on it and prints the tables.
func run(w io.Writer, cfg config) error {
	var sets []*Dataset
	for _, l := range loaders {
		if len(cfg.datasets) > 0 && !slices.Contains(cfg.datasets, l.name) {
			continue
		}
		ds, err := l.load(cfg.dir)
		if err != nil {
			return fmt.Errorf("loading %s: %w", l.name, err)
		}
		// In name order, as the indexes hold them, so that ties rank alike everywhere.
		slices.SortFunc(ds.Tools, func(a, b tool.Definition) int { return cmp.Compare(a.Name, b.Name) })
		if cfg.maxQueries > 0 && len(ds.Queries) > cfg.maxQueries {
			ds.Queries = ds.Queries[:cfg.maxQueries]
		}
		sets = append(sets, ds)
	}
	if len(sets) == 0 {
		return errors.New("no dataset selected")
	}
	var syss []System
	for _, s := range systems() {
		if cfg.match == "" || strings.Contains(s.Name, cfg.match) {
			syss = append(syss, s)
		}
	}

	results := make([][]Metrics, len(syss)) // [system][dataset]
	for si, s := range syss {
		for _, ds := range sets {
			m, err := evaluate(s, ds)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", s.Name, ds.Name, err)
			}
			results[si] = append(results[si], m)
		}
	}

	fmt.Fprintln(w, "## nDCG@10 by dataset")
	fmt.Fprintln(w)
	tableHead(w, "system", sets)
	for si, s := range syss {
		fmt.Fprintf(w, "| %s |", s.Name)
		for di := range sets {
			fmt.Fprintf(w, " %.1f |", results[si][di].NDCG10)
		}
		fmt.Fprintln(w)
	}

	for di, ds := range sets {
		fmt.Fprintf(w, "\n## %s: %d tools, %d queries (%d need several tools)\n\n", ds.Name, len(ds.Tools), len(ds.Queries), results[0][di].Multi)
		fmt.Fprintln(w, "| system | R@1 | R@5 | R@10 | nDCG@10 | all in top 5 (multi-tool) | all in top 10 (multi-tool) |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
		for si, s := range syss {
			m := results[si][di]
			fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %.1f | %s | %s |\n", s.Name, m.R1, m.R5, m.R10, m.NDCG10, share(m, m.All5), share(m, m.All10))
		}
	}

	if err := multiTable(w, sets, syss); err != nil {
		return err
	}

	if cfg.tokens {
		fmt.Fprintln(w)
		return tokenTable(w, sets)
	}
	return nil
}

// share formats a share of the multi-tool queries, or a dash when there are none.
func share(m Metrics, v float64) string {
	if m.Multi == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}

// evaluate builds s over the dataset's tools and scores its top 10 for every query, each request
// sent whole as one query.
func evaluate(s System, ds *Dataset) (Metrics, error) {
	return evaluateWith(s, ds, wholeRequest)
}

// evaluateWith builds s over the dataset's tools and scores the top 10 that the protocol finds
// for every query.
func evaluateWith(s System, ds *Dataset, p Protocol) (Metrics, error) {
	search, err := s.Build(ds.Tools)
	if err != nil {
		return Metrics{}, err
	}
	var along func(string) []string
	if p.Companions != nil {
		along = p.Companions(ds.Tools)
	}
	var pre *toolsearch.Prerequisites
	if p.Prerequisites {
		pre = toolsearch.NewPrerequisites(ds.Tools)
	}
	var acc accumulate
	for _, q := range ds.Queries {
		ranked, err := p.searchWith(search, along, pre, q.Text, 10)
		if err != nil {
			return Metrics{}, fmt.Errorf("query %s: %w", q.ID, err)
		}
		acc.add(ranked, q.Gold)
	}
	return acc.result(), nil
}

// tableHead writes the head of a Markdown table with a column per data set after first.
func tableHead(w io.Writer, first string, sets []*Dataset) {
	fmt.Fprintf(w, "| %s |", first)
	for _, ds := range sets {
		fmt.Fprintf(w, " %s |", ds.Name)
	}
	fmt.Fprint(w, "\n|---|")
	for range sets {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
}
