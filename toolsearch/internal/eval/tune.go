package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/bm25f"
)

// runTune grid-searches k1, b and the field weights of the keyword index on one dataset and
// prints the best settings. Tune on a development split only; report on the others.
func runTune(w io.Writer, dir, name string) error {
	var ds *Dataset
	for _, l := range loaders {
		if l.name == name {
			var err error
			if ds, err = l.load(dir); err != nil {
				return err
			}
		}
	}
	if ds == nil {
		return fmt.Errorf("unknown dataset %q", name)
	}
	type result struct {
		e engine
		m Metrics
	}
	var results []result
	docs := engine{analyzer: fullAnalyzer}.analyze(ds.Tools)
	out := defaults() // the output schema's fields as the index weighs them
	for _, k1 := range []float64{0.9, 1.2, 1.6} {
		for _, b := range []float64{0.5, 0.75, 0.9} {
			for _, wn := range []float64{1, 2, 3, 4, 6} {
				for _, wpn := range []float64{0.5, 1, 2} {
					for _, wpd := range []float64{0.25, 0.5, 1} {
						e := engine{analyzer: fullAnalyzer, k1: k1,
							fields: [6]bm25f.Field{field(wn, b), field(1, b), field(wpn, b), field(wpd, b), out[4], out[5]}}
						m, err := evaluate(System{Build: func([]tool.Definition) (Searcher, error) {
							return e.index(ds.Tools, docs), nil
						}}, ds)
						if err != nil {
							return err
						}
						results = append(results, result{e, m})
					}
				}
			}
		}
	}
	slices.SortFunc(results, func(a, b result) int { return cmp.Compare(b.m.NDCG10, a.m.NDCG10) })
	fmt.Fprintf(w, "| k1 | b | name | description | param names | param descriptions | nDCG@10 | R@5 |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range results[:min(15, len(results))] {
		f := r.e.fields
		fmt.Fprintf(w, "| %.1f | %.2f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n",
			r.e.k1, f[0].B, f[0].Weight, f[1].Weight, f[2].Weight, f[3].Weight, r.m.NDCG10, r.m.R5)
	}
	return nil
}
