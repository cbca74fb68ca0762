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
//
// Terms are numbered as they are first seen and the postings are stored in flat arrays, term
// after term: building groups numbers, not strings, and a search walks contiguous memory.
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

// Builder builds an index document by document, from terms given as numbers: a caller that
// analyses many texts can remember the numbers of the words it has seen instead of analysing
// and hashing them again.
type Builder struct {
	p    Params
	dict map[string]int32
	// The documents' terms, field after field, in chunks that are never moved: a document lies
	// within one chunk. Document d is in chunks[docChunk[d]], its field f ending at
	// ends[d*nf+f] there and its first field starting at starts[d].
	chunks   [][]int32
	docChunk []int32
	starts   []int32
	ends     []int32
}

// chunkSize is the number of terms of a chunk, unless one document needs more.
const chunkSize = 1 << 16

// NewBuilder returns a builder of an index with parameters p.
func NewBuilder(p Params) *Builder {
	return &Builder{p: p, dict: make(map[string]int32)}
}

// Term returns the number of term t, giving it the next number if it is new.
func (b *Builder) Term(t string) int32 {
	id, ok := b.dict[t]
	if !ok {
		id = int32(len(b.dict))
		b.dict[t] = id
	}
	return id
}

// Add adds the next document: one list of term numbers (from Term) per field, in the order of
// the fields; missing fields are empty. Documents are numbered in the order they are added.
func (b *Builder) Add(fields [][]int32) {
	n := 0
	for f := range b.p.Fields {
		if f < len(fields) {
			n += len(fields[f])
		}
	}
	if len(b.chunks) == 0 || len(b.chunks[len(b.chunks)-1])+n > cap(b.chunks[len(b.chunks)-1]) {
		b.chunks = append(b.chunks, make([]int32, 0, max(chunkSize, n)))
	}
	c := &b.chunks[len(b.chunks)-1]
	b.docChunk = append(b.docChunk, int32(len(b.chunks)-1))
	b.starts = append(b.starts, int32(len(*c)))
	for f := range b.p.Fields {
		if f < len(fields) {
			*c = append(*c, fields[f]...)
		}
		b.ends = append(b.ends, int32(len(*c)))
	}
}

// Build returns the index of the documents added. The builder must not be used afterwards.
func (b *Builder) Build() *Index {
	nf := len(b.p.Fields)
	n := len(b.starts)
	field := func(d, f int) []int32 {
		start := b.starts[d]
		if f > 0 {
			start = b.ends[d*nf+f-1]
		}
		return b.chunks[b.docChunk[d]][start:b.ends[d*nf+f]]
	}
	avg := make([]float64, nf)
	for d := range n {
		for f := range nf {
			avg[f] += float64(len(field(d, f)))
		}
	}
	for f := range avg {
		if n > 0 {
			avg[f] /= float64(n)
		}
		if avg[f] == 0 {
			avg[f] = 1
		}
	}

	// Two passes over the documents, each finding every document's distinct terms with their
	// normalised frequencies: the first counts the postings of each term, the second fills them
	// in. Computing the frequencies twice costs less than keeping them.
	ix := &Index{n: n, dict: b.dict, offs: make([]int32, len(b.dict)+1)}
	tf := make([]float64, len(b.dict))
	var seen []int32
	eachDoc := func(visit func(d int32, t int32, tf float64)) {
		for d := range n {
			for f, fp := range b.p.Fields {
				ts := field(d, f)
				if fp.Weight == 0 || len(ts) == 0 {
					continue
				}
				norm := fp.Weight / (1 - fp.B + fp.B*float64(len(ts))/avg[f])
				for _, t := range ts {
					if tf[t] == 0 {
						seen = append(seen, t)
					}
					tf[t] += norm
				}
			}
			for _, t := range seen {
				visit(int32(d), t, tf[t])
				tf[t] = 0
			}
			seen = seen[:0]
		}
	}
	eachDoc(func(_, t int32, _ float64) { ix.offs[t+1]++ })
	for t := range len(b.dict) {
		ix.offs[t+1] += ix.offs[t]
	}
	total := ix.offs[len(b.dict)]
	ix.docs, ix.ws = make([]int32, total), make([]float32, total)
	idf := make([]float64, len(b.dict))
	for t := range idf {
		df := float64(ix.offs[t+1] - ix.offs[t])
		idf[t] = math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
	}
	next := make([]int32, len(b.dict))
	copy(next, ix.offs)
	eachDoc(func(d, t int32, tf float64) { // in document order, so each term's postings are too
		i := next[t]
		next[t]++
		ix.docs[i] = d
		ix.ws[i] = float32(idf[t] * tf / (b.p.K1 + tf))
	})
	ix.scratch.New = func() any {
		return &scratch{scores: make([]float32, ix.n)}
	}
	*b = Builder{}
	return ix
}

// Index is an immutable BM25F index over a fixed set of documents, safe for concurrent searches.
type Index struct {
	n    int
	dict map[string]int32
	// The postings of term t are docs[offs[t]:offs[t+1]], in document order, with their
	// weights in ws.
	offs    []int32
	docs    []int32
	ws      []float32
	scratch sync.Pool
}

// Build indexes docs. Documents are numbered by their position in docs.
func Build(docs []Doc, p Params) *Index {
	b := NewBuilder(p)
	fields := make([][]int32, len(p.Fields))
	for _, d := range docs {
		for f := range fields {
			fields[f] = fields[f][:0]
			if f < len(d) {
				for _, t := range d[f] {
					fields[f] = append(fields[f], b.Term(t))
				}
			}
		}
		b.Add(fields)
	}
	return b.Build()
}

// Len returns the number of documents.
func (ix *Index) Len() int { return ix.n }

// Terms returns the number of distinct terms, those of fields of weight 0 included.
func (ix *Index) Terms() int { return len(ix.dict) }

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
	scores := s.scores
	for _, q := range query {
		t, ok := ix.dict[q]
		if !ok {
			continue
		}
		lo, hi := ix.offs[t], ix.offs[t+1]
		ws := ix.ws[lo:hi]
		for i, d := range ix.docs[lo:hi] {
			if scores[d] == 0 {
				s.touched = append(s.touched, d)
			}
			scores[d] += ws[i]
		}
	}
	s.top.Reset()
	var worst Hit
	full := false
	for _, d := range s.touched {
		sc := scores[d]
		if sc <= 0 {
			continue
		}
		h := Hit{ID: int(d), Score: float64(sc)}
		// Most documents cannot beat the worst of the best k kept so far: they are passed over
		// before the filter is asked, which may be costly. That worst only gets better, so
		// nothing passed over would have been kept.
		if full && (h.Score < worst.Score || h.Score == worst.Score && h.ID > worst.ID) {
			continue
		}
		if keep != nil && !keep(int(d)) {
			continue
		}
		s.top.Offer(h, k)
		worst, full = s.top.Worst(k)
	}
	return s.top.Sorted()
}
