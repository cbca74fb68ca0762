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
	"github.com/wield-ai/wield/toolsearch/internal/vecdot"
)

// Embedder turns texts into vectors whose cosine similarity reflects how alike the texts are,
// typically through a provider's embedding API.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts. All vectors of one embedder have
	// the same length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// VectorConfig configures a [VectorIndex]. The zero value gives the defaults.
type VectorConfig struct {
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
//
// A search reads every tool's vector, so its cost grows with the catalog. It first scans a copy
// of the vectors quantized to 8 bits, a quarter of the memory, and computes the exact cosine only
// for tools whose bound on the exact score could still put them among the best; results and
// scores are those of an exact scan.
type VectorIndex struct {
	embedder Embedder
	opts     VectorConfig
	store    store[*vectorSet]
}

type vectorSet struct {
	defs []tool.Definition
	dim  int // the embedder's
	// stride is dim rounded up for the dot-product kernels; rows are padded with zeros.
	stride int
	vecs   []float32 // len(defs) rows of stride, each of unit length (or zero)
	// codes holds vecs quantized: row i is about scale[i] times codes' row i. slack[i] bounds
	// how far the exact score of row i for a unit query can be above the score computed from the
	// codes, rounding included.
	codes []int8
	scale []float32
	slack []float64
}

// VectorOptions is the former name of [VectorConfig].
//
// Deprecated: use VectorConfig with [NewVector].
type VectorOptions = VectorConfig

// NewVector returns an empty vector index over e, or an error for a nil e, a negative
// BatchSize or a MinScore outside -1 to 1.
func NewVector(e Embedder, cfg VectorConfig) (*VectorIndex, error) {
	switch {
	case e == nil:
		return nil, errNoEmbedder
	case cfg.BatchSize < 0:
		return nil, fmt.Errorf("toolsearch: VectorConfig.BatchSize is %d, want 0 or more", cfg.BatchSize)
	case !(cfg.MinScore >= -1 && cfg.MinScore <= 1):
		return nil, fmt.Errorf("toolsearch: VectorConfig.MinScore is %v, want -1 to 1", cfg.MinScore)
	}
	return newVector(e, cfg), nil
}

// NewVectorIndex returns an empty vector index over e. opts may be nil.
//
// Deprecated: use [NewVector], which reports a nil Embedder and settings no search could use.
func NewVectorIndex(e Embedder, opts *VectorOptions) *VectorIndex {
	var cfg VectorConfig
	if opts != nil {
		cfg = *opts
	}
	return newVector(e, cfg)
}

func newVector(e Embedder, cfg VectorConfig) *VectorIndex {
	v := &VectorIndex{embedder: e, opts: cfg}
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
	return v.store.index(ctx, session, defs, func(sorted []tool.Definition) (*vectorSet, error) {
		return v.build(ctx, sorted)
	})
}

func (v *VectorIndex) build(ctx context.Context, defs []tool.Definition) (*vectorSet, error) {
	set := &vectorSet{defs: defs}
	texts := make([]string, len(defs))
	for i, d := range defs {
		texts[i] = v.opts.Text(d)
	}
	row := 0
	for start := 0; start < len(texts); start += v.opts.BatchSize {
		batch := texts[start:min(start+v.opts.BatchSize, len(texts))]
		vecs, err := v.embed(ctx, v.embedder, batch)
		if err != nil {
			return nil, fmt.Errorf("toolsearch: embedding tools: %w", err)
		}
		for _, vec := range vecs {
			if set.dim == 0 {
				set.dim = len(vec)
				set.stride = (len(vec) + vecdot.Align - 1) / vecdot.Align * vecdot.Align
				set.vecs = make([]float32, len(defs)*set.stride)
				set.codes = make([]int8, len(defs)*set.stride)
				set.scale = make([]float32, len(defs))
				set.slack = make([]float64, len(defs))
			}
			if len(vec) != set.dim {
				return nil, fmt.Errorf("toolsearch: embedder returned vectors of %d and %d dimensions", set.dim, len(vec))
			}
			r := set.vecs[row*set.stride : (row+1)*set.stride]
			copy(r, vec)
			normalize(r)
			set.scale[row], set.slack[row] = quantize(r, set.codes[row*set.stride:(row+1)*set.stride])
			row++
		}
	}
	return set, nil
}

// quantize writes v's values scaled to the int8 range into codes and returns the scale that
// maps them back and the slack of the row: how far above the score computed from the codes the
// exact score can be, for any query of unit length.
//
// Both scores are float32 sums of len(v) products, each within γ = n·u/(1−n·u) (u = 2⁻²⁴) of
// the true sum relative to the sum of the products' magnitudes, whatever the order of addition.
// With q the query and v̂ = scale·codes, exact − approximate ≤ |q·(v − v̂)| + γ·(‖v‖ + ‖v̂‖)
// ≤ ‖v − v̂‖ + γ·(‖v‖ + ‖v̂‖), by Cauchy–Schwarz. A little more is added for the query's own
// rounding (its length is 1 only to within float32 precision) and for the final products.
func quantize(v []float32, codes []int8) (scale float32, slack float64) {
	var peak float32
	for _, x := range v {
		peak = max(peak, float32(math.Abs(float64(x))))
	}
	if peak == 0 {
		clear(codes)
		return 0, 0
	}
	scale = peak / 127
	var errSq, normSq, qNormSq float64
	for i, x := range v {
		c := int8(max(-127, min(127, math.Round(float64(x/scale)))))
		codes[i] = c
		xq := float64(scale) * float64(c)
		errSq += (float64(x) - xq) * (float64(x) - xq)
		normSq += float64(x) * float64(x)
		qNormSq += xq * xq
	}
	n := float64(len(v))
	gamma := n * 0x1p-24 / (1 - n*0x1p-24)
	slack = math.Sqrt(errSq) + gamma*(math.Sqrt(normSq)+math.Sqrt(qNormSq))
	return scale, slack*(1+1e-6) + 1e-9
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
		for _, x := range vec {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, errors.New("embedder returned a vector with a NaN or infinite value")
			}
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
	set, err := v.store.get(ctx, req.Session)
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
	if len(vecs[0]) != set.dim {
		return nil, fmt.Errorf("toolsearch: query vector has %d dimensions, tools have %d", len(vecs[0]), set.dim)
	}
	q := make([]float32, set.stride)
	copy(q, vecs[0])
	normalize(q)

	// Rows are visited in order, so a row whose score only ties the worst kept one loses the tie
	// (the lower index wins): a row is skipped when its bound is not above that score.
	var top topk.Heap
	k := req.limit()
	var approx [256]float32
	var exact [1]float32
	for start := 0; start < len(set.defs); start += len(approx) {
		block := approx[:min(len(approx), len(set.defs)-start)]
		vecdot.DotsInt8(q, set.codes[start*set.stride:(start+len(block))*set.stride], block)
		for j, a := range block {
			i := start + j
			bound := float64(a)*float64(set.scale[i]) + set.slack[i]
			if bound <= v.opts.MinScore {
				continue
			}
			if worst, full := top.Worst(k); full && bound <= worst.Score {
				continue
			}
			vecdot.Dots(q, set.vecs[i*set.stride:(i+1)*set.stride], exact[:])
			s := float64(exact[0])
			if s <= v.opts.MinScore || (req.Filter != nil && !req.Filter(set.defs[i])) {
				continue
			}
			top.Offer(topk.Item{ID: i, Score: s}, k)
		}
	}
	return hitsOf(set.defs, top.Sorted()), nil
}

// Clear implements [Index].
func (v *VectorIndex) Clear(_ context.Context, session string) error {
	v.store.clear(session)
	return nil
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
