package main

import (
	"math"
	"slices"
)

// Metrics are retrieval scores averaged over a dataset's queries.
type Metrics struct {
	Queries int
	R1      float64 // recall at 1: share of a query's gold tools ranked first, averaged
	R5      float64
	R10     float64
	NDCG10  float64 // binary relevance
	// Single counts the queries needing one tool and SingleNDCG10 is their nDCG@10.
	Single       int
	SingleNDCG10 float64
	// Multi counts queries needing more than one tool; All5 and All10 are the shares of them
	// with every needed tool in the top 5 and the top 10.
	Multi int
	All5  float64
	All10 float64
}

// score compares a ranking (best first) with the gold tools of one query.
func score(ranked, gold []string) (r1, r5, r10, ndcg float64, all5, all10 bool) {
	hits := func(k int) int {
		n := 0
		for _, name := range ranked[:min(k, len(ranked))] {
			if slices.Contains(gold, name) {
				n++
			}
		}
		return n
	}
	g := float64(len(gold))
	r1, r5, r10 = float64(hits(1))/g, float64(hits(5))/g, float64(hits(10))/g
	var dcg, idcg float64
	for i, name := range ranked[:min(10, len(ranked))] {
		if slices.Contains(gold, name) {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(10, len(gold)) {
		idcg += 1 / math.Log2(float64(i+2))
	}
	return r1, r5, r10, dcg / idcg, hits(5) == len(gold), hits(10) == len(gold)
}

// accumulate averages per-query scores.
type accumulate struct{ m Metrics }

func (a *accumulate) add(ranked, gold []string) {
	r1, r5, r10, ndcg, all5, all10 := score(ranked, gold)
	a.m.Queries++
	a.m.R1 += r1
	a.m.R5 += r5
	a.m.R10 += r10
	a.m.NDCG10 += ndcg
	if len(gold) > 1 {
		a.m.Multi++
		if all5 {
			a.m.All5++
		}
		if all10 {
			a.m.All10++
		}
	} else {
		a.m.Single++
		a.m.SingleNDCG10 += ndcg
	}
}

func (a *accumulate) result() Metrics {
	m := a.m
	if n := float64(m.Queries); n > 0 {
		m.R1, m.R5, m.R10, m.NDCG10 = 100*m.R1/n, 100*m.R5/n, 100*m.R10/n, 100*m.NDCG10/n
	}
	if m.Single > 0 {
		m.SingleNDCG10 = 100 * m.SingleNDCG10 / float64(m.Single)
	}
	if m.Multi > 0 {
		m.All5 = 100 * m.All5 / float64(m.Multi)
		m.All10 = 100 * m.All10 / float64(m.Multi)
	}
	return m
}
