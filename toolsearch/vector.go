package toolsearch

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/tooldoc"
	"github.com/wield-ai/wield/toolsearch/internal/topk"
)

// Embedder turns texts into vectors whose cosine similarity reflects how alike the texts are,
// typically through a provider's embedding API.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts. All vectors of one embedder have
	// the same length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// VectorOptions configure a [VectorIndex]. The zero value gives the defaults.
type VectorOptions struct {
	// MinScore drops results whose cosine similarity to the query is not above it. Zero (the
	// default) drops only tools unrelated to the query or pointing away from it.
	MinScore float64
	// Text returns the text embedded for a tool; nil means [ToolText].
	Text func(tool.Definition) string
	// BatchSize caps the texts sent in one Embed call while indexing; zero means 64.
	BatchSize int
	// QueryEmbedder embeds the search queries; nil means the index's Embedder. Embedding APIs
	// that embed a query differently from the documents searched (Gemini's task types
	// RETRIEVAL_QUERY and RETRIEVAL_DOCUMENT, models trained with "search_query: " and
	// "search_document: " prefixes) need one embedder for each; both must give vectors of the
	// same space (same model and dimensions).
	QueryEmbedder Embedder
}

// VectorIndex is an [Index] that ranks tools by the cosine similarity of their embedded text to
// the embedded query. Embedding costs money and time, so sessions with identical tool sets share
// one set of vectors, embedded once.
type VectorIndex struct {
	embedder Embedder
	opts     VectorOptions
	store    store[*vectorSet]
}

type vectorSet struct {
	defs []tool.Definition
	dim  int
	vecs []float32 // len(defs) rows of dim, each of unit length (or zero)
}

// NewVectorIndex returns an empty vector index over e. opts may be nil.
func NewVectorIndex(e Embedder, opts *VectorOptions) *VectorIndex {
	v := &VectorIndex{embedder: e}
	if opts != nil {
		v.opts = *opts
	}
	if v.opts.Text == nil {
		v.opts.Text = ToolText
	}
	if v.opts.BatchSize <= 0 {
		v.opts.BatchSize = 64
	}
	return v
}

// ToolText is the text a [VectorIndex] embeds for a tool by default: its name, description and
// parameters, one per line.
func ToolText(def tool.Definition) string {
	d := tooldoc.Of(def)
	var b strings.Builder
	b.WriteString(d.Name)
	b.WriteString("\n")
	b.WriteString(d.Description)
	if len(d.ParamNames) > 0 {
		b.WriteString("\nparameters: ")
		b.WriteString(strings.Join(d.ParamNames, ", "))
	}
	for _, p := range d.ParamDescriptions {
		b.WriteString("\n")
		b.WriteString(p)
	}
	return b.String()
}

var errNoEmbedder = errors.New("toolsearch: vector index has no Embedder")

// IndexTools implements [Index]. The tools' texts are embedded here, in batches.
func (v *VectorIndex) IndexTools(ctx context.Context, session string, defs []tool.Definition) error {
	if v.embedder == nil {
		return errNoEmbedder
	}
	sorted, err := sortDefs(defs)
	if err != nil {
		return err
	}
	return v.store.put(session, contentKey(sorted), func() (*vectorSet, error) {
		return v.build(ctx, sorted)
	})
}

func (v *VectorIndex) build(ctx context.Context, defs []tool.Definition) (*vectorSet, error) {
	set := &vectorSet{defs: defs}
	texts := make([]string, len(defs))
	for i, d := range defs {
		texts[i] = v.opts.Text(d)
	}
	for start := 0; start < len(texts); start += v.opts.BatchSize {
		batch := texts[start:min(start+v.opts.BatchSize, len(texts))]
		vecs, err := v.embed(ctx, v.embedder, batch)
		if err != nil {
			return nil, fmt.Errorf("toolsearch: embedding tools: %w", err)
		}
		for _, vec := range vecs {
			if set.dim == 0 {
				set.dim = len(vec)
				set.vecs = make([]float32, 0, len(defs)*set.dim)
			}
			if len(vec) != set.dim {
				return nil, fmt.Errorf("toolsearch: embedder returned vectors of %d and %d dimensions", set.dim, len(vec))
			}
			set.vecs = append(set.vecs, vec...)
			normalize(set.vecs[len(set.vecs)-set.dim:])
		}
	}
	return set, nil
}

// embed calls e and checks that it kept its side of the contract.
func (v *VectorIndex) embed(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for _, vec := range vecs {
		if len(vec) == 0 {
			return nil, errors.New("embedder returned an empty vector")
		}
	}
	return vecs, nil
}

// Search implements [Index]. The query is embedded on every search, by
// [VectorOptions.QueryEmbedder] when set.
func (v *VectorIndex) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	if v.embedder == nil {
		return nil, errNoEmbedder
	}
	set, err := v.store.get(req.Session)
	if err != nil {
		return nil, err
	}
	if len(set.defs) == 0 {
		return nil, nil
	}
	qe := v.opts.QueryEmbedder
	if qe == nil {
		qe = v.embedder
	}
	vecs, err := v.embed(ctx, qe, []string{req.Query})
	if err != nil {
		return nil, fmt.Errorf("toolsearch: embedding query: %w", err)
	}
	q := vecs[0]
	if len(q) != set.dim {
		return nil, fmt.Errorf("toolsearch: query vector has %d dimensions, tools have %d", len(q), set.dim)
	}
	q = normalize(append([]float32(nil), q...))

	var top topk.Heap
	k := req.limit()
	for i := range set.defs {
		row := set.vecs[i*set.dim : (i+1)*set.dim]
		s := float64(dot(q, row))
		if s <= v.opts.MinScore || (req.Filter != nil && !req.Filter(set.defs[i])) {
			continue
		}
		top.Offer(topk.Item{ID: i, Score: s}, k)
	}
	found := top.Sorted()
	hits := make([]Hit, len(found))
	for i, f := range found {
		hits[i] = Hit{Name: set.defs[f.ID].Name, Score: f.Score}
	}
	return hits, nil
}

// Clear implements [Index].
func (v *VectorIndex) Clear(_ context.Context, session string) error {
	v.store.clear(session)
	return nil
}

func dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// HashingEmbedder is an [Embedder] that needs no model: each distinct term of a text (as an
// [Analyzer] gives it) adds ±1 to one of Dim dimensions chosen by a hash of the term. Texts
// sharing terms get similar vectors, so it finds lexical overlap, not meaning. It is deterministic and offline,
// which makes it the embedder for tests and a baseline to compare real embedders with.
type HashingEmbedder struct {
	// Dim is the vector length; zero means 512.
	Dim int
	// Analyzer gives the terms; nil means [English].
	Analyzer Analyzer
}

// Embed implements [Embedder].
func (h *HashingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dim := h.Dim
	if dim <= 0 {
		dim = 512
	}
	var an Analyzer = h.Analyzer
	if an == nil {
		an = English()
	}
	an = memoized(an)
	out := make([][]float32, len(texts))
	var terms []string
	for i, t := range texts {
		vec := make([]float32, dim)
		terms = an.Terms(terms[:0], t)
		slices.Sort(terms)
		for j, term := range terms {
			if j > 0 && terms[j-1] == term {
				continue
			}
			f := fnv.New64a()
			io.WriteString(f, term)
			x := mix(f.Sum64())
			sign := float32(1)
			if x>>63 == 1 {
				sign = -1
			}
			vec[(x&(1<<63-1))%uint64(dim)] += sign
		}
		out[i] = vec
	}
	return out, nil
}

// mix is the finalizer of MurmurHash3: it spreads FNV's bits so that the low bits chosen for the
// dimension and the high bit chosen for the sign are independent.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
