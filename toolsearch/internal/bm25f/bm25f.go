// Package bm25f is the scoring engine of the keyword tool index: BM25F over documents made of
// fields of terms, with per-field weights and length normalisation.
//
// Scores follow the simple BM25F of Robertson and Zaragoza ("The Probabilistic Relevance
// Framework: BM25 and Beyond", 2009): a term's frequencies in each field are normalised by that
// field's length, weighted and summed, and the sum is saturated once:
//
//	tf̃(t,d)    = Σ_f w_f · tf(t,d,f) / (1 − b_f + b_f · len(d,f)/avglen(f))
//	score(q,d) = Σ_{t∈q} idf(t) · tf̃(t,d) / (k1 + tf̃(t,d))
//	idf(t)     = ln(1 + (N − df(t) + 0.5)/(df(t) + 0.5))
//
// With one field of weight 1 this is classic BM25 (Lucene's form of the idf, never negative).
// Everything but the query is known when the index is built, so each posting stores its term's
// whole contribution and a search only adds numbers.
package bm25f

import (
	"math"
	"sync"

	"github.com/wield-ai/wield/toolsearch/internal/topk"
)

// Field sets the weight and length normalisation of one field.
type Field struct {
	// Weight multiplies the field's term frequencies; 0 ignores the field.
	Weight float64
	// B is the strength of length normalisation, from 0 (none) to 1 (full).
	B float64
}

// Params are the parameters of an index: k1 and one Field per document field.
type Params struct {
	// K1 is the term-frequency saturation.
	K1 float64
	// Fields holds one entry per field of every document, in the documents' field order.
	Fields []Field
}

// Doc is a document: one list of terms per field, in the order of Params.Fields.
type Doc [][]string

type posting struct {
	doc int32
	w   float32
}

// Index is an immutable BM25F index over a fixed set of documents, safe for concurrent searches.
type Index struct {
	n        int
	postings map[string][]posting
	scratch  sync.Pool
}

// Build indexes docs. Documents are numbered by their position in docs.
func Build(docs []Doc, p Params) *Index {
	nf := len(p.Fields)
	avg := make([]float64, nf)
	for _, d := range docs {
		for f := 0; f < nf && f < len(d); f++ {
			avg[f] += float64(len(d[f]))
		}
	}
	for f := range avg {
		if len(docs) > 0 {
			avg[f] /= float64(len(docs))
		}
		if avg[f] == 0 {
			avg[f] = 1
		}
	}

	type entry struct {
		doc int32
		tf  float64
	}
	raw := make(map[string][]entry)
	tf := make(map[string]float64)
	for i, d := range docs {
		clear(tf)
		for f := 0; f < nf && f < len(d); f++ {
			fp := p.Fields[f]
			if fp.Weight == 0 || len(d[f]) == 0 {
				continue
			}
			norm := fp.Weight / (1 - fp.B + fp.B*float64(len(d[f]))/avg[f])
			for _, t := range d[f] {
				tf[t] += norm
			}
		}
		for t, v := range tf {
			raw[t] = append(raw[t], entry{int32(i), v})
		}
	}

	ix := &Index{n: len(docs), postings: make(map[string][]posting, len(raw))}
	n := float64(len(docs))
	for t, es := range raw {
		df := float64(len(es))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		ps := make([]posting, len(es))
		for j, e := range es {
			ps[j] = posting{doc: e.doc, w: float32(idf * e.tf / (p.K1 + e.tf))}
		}
		ix.postings[t] = ps
	}
	ix.scratch.New = func() any {
		return &scratch{scores: make([]float32, ix.n)}
	}
	return ix
}

// Len returns the number of documents.
func (ix *Index) Len() int { return ix.n }

// Terms returns the number of distinct terms.
func (ix *Index) Terms() int { return len(ix.postings) }

// Hit is a matching document (its ID is the document number) and its score.
type Hit = topk.Item

type scratch struct {
	scores  []float32
	touched []int32
	top     topk.Heap
}

// Search returns up to k documents that share a term with query, best first; equal scores go
// to the lower document number. A term repeated in the query counts as often as it appears.
// keep, when not nil, drops the documents it returns false for.
func (ix *Index) Search(query []string, k int, keep func(doc int) bool) []Hit {
	if k <= 0 || ix.n == 0 {
		return nil
	}
	s := ix.scratch.Get().(*scratch)
	defer func() { // even if keep panics, the scratch goes back clean
		for _, d := range s.touched {
			s.scores[d] = 0
		}
		s.touched = s.touched[:0]
		ix.scratch.Put(s)
	}()
	for _, t := range query {
		for _, p := range ix.postings[t] {
			if s.scores[p.doc] == 0 {
				s.touched = append(s.touched, p.doc)
			}
			s.scores[p.doc] += p.w
		}
	}
	s.top.Reset()
	for _, d := range s.touched {
		sc := s.scores[d]
		if sc <= 0 || (keep != nil && !keep(int(d))) {
			continue
		}
		s.top.Offer(Hit{ID: int(d), Score: float64(sc)}, k)
	}
	return s.top.Sorted()
}
