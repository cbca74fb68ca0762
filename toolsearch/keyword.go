package toolsearch

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/bm25f"
	"github.com/wield-ai/wield/toolsearch/internal/tooldoc"
)

// FieldParams weighs one field of a tool definition in the keyword index's BM25F score.
type FieldParams struct {
	// Weight multiplies the field's term frequencies; 0 ignores the field.
	Weight float64
	// B is the strength of length normalisation within the field, from 0 (none) to 1 (full).
	B float64
}

// The keyword index's default parameters.
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

// Default field parameters of the keyword index, chosen on a development set (Seal-Tools dev):
// a tool's name says most about what it does in the fewest words; parameters say more about
// what a tool takes than what it does, and outputs about what it gives back, which requests
// often name ("the title, author and ISBN of the book"). Outputs weigh as much as parameters:
// weights from 0.25 to 1 did alike on the data they were tried on.
var (
	DefaultNameField               = FieldParams{Weight: 2, B: DefaultB}
	DefaultDescriptionField        = FieldParams{Weight: 1, B: DefaultB}
	DefaultParamNamesField         = FieldParams{Weight: 0.5, B: DefaultB}
	DefaultParamDescriptionsField  = FieldParams{Weight: 0.5, B: DefaultB}
	DefaultOutputNamesField        = FieldParams{Weight: 0.5, B: DefaultB}
	DefaultOutputDescriptionsField = FieldParams{Weight: 0.5, B: DefaultB}
)

// KeywordConfig configures a [KeywordIndex]. The zero value gives the defaults.
type KeywordConfig struct {
	// K1 is BM25's term-frequency saturation; zero means DefaultK1.
	K1 float64
	// Name, Description, ParamNames, ParamDescriptions, OutputNames and OutputDescriptions
	// weigh the six fields of a tool definition; nil means the field's default
	// (DefaultNameField and so on).
	Name               *FieldParams
	Description        *FieldParams
	ParamNames         *FieldParams
	ParamDescriptions  *FieldParams
	OutputNames        *FieldParams
	OutputDescriptions *FieldParams
	// Analyzer turns text into terms; nil means [English].
	Analyzer Analyzer
}

// KeywordIndex is an [Index] that ranks tools with BM25F over six fields of their definitions:
// name, description, parameter names and parameter descriptions (nested parameters included),
// and the property names and descriptions of the output schema (what the tool returns, as MCP
// servers and typed Go tools declare it).
// Text is analysed by an [Analyzer]: by default identifiers are split (camelCase, snake_case,
// kebab-case, dotted.names), their common abbreviations expanded, stop words dropped and words
// stemmed, so "get the weather forecast" finds getWeatherForecasts and "repository statistics"
// finds repo_stats.
//
// Sessions with identical tool sets share one built index.
type KeywordIndex struct {
	params   bm25f.Params
	analyzer Analyzer
	store    store[*keywordSet]
}

type keywordSet struct {
	defs []tool.Definition
	ix   *bm25f.Index
}

// KeywordOptions is the former name of [KeywordConfig].
//
// Deprecated: use KeywordConfig with [NewKeyword].
type KeywordOptions = KeywordConfig

// NewKeyword returns an empty keyword index, or an error naming a setting no search could use:
// a negative K1 or field weight, a B outside 0 to 1.
func NewKeyword(cfg KeywordConfig) (*KeywordIndex, error) {
	if cfg.K1 < 0 || math.IsNaN(cfg.K1) {
		return nil, fmt.Errorf("toolsearch: KeywordConfig.K1 is %v, want 0 or more", cfg.K1)
	}
	for _, f := range []struct {
		name string
		p    *FieldParams
	}{{"Name", cfg.Name}, {"Description", cfg.Description}, {"ParamNames", cfg.ParamNames},
		{"ParamDescriptions", cfg.ParamDescriptions}, {"OutputNames", cfg.OutputNames}, {"OutputDescriptions", cfg.OutputDescriptions}} {
		if f.p == nil {
			continue
		}
		if f.p.Weight < 0 || math.IsNaN(f.p.Weight) {
			return nil, fmt.Errorf("toolsearch: KeywordConfig.%s.Weight is %v, want 0 or more", f.name, f.p.Weight)
		}
		if !(f.p.B >= 0 && f.p.B <= 1) {
			return nil, fmt.Errorf("toolsearch: KeywordConfig.%s.B is %v, want 0 to 1", f.name, f.p.B)
		}
	}
	return newKeyword(&cfg), nil
}

// NewKeywordIndex returns an empty keyword index. opts may be nil.
//
// Deprecated: use [NewKeyword], which reports settings no search could use.
func NewKeywordIndex(opts *KeywordOptions) *KeywordIndex {
	if opts == nil {
		opts = &KeywordOptions{}
	}
	return newKeyword(opts)
}

func newKeyword(opts *KeywordConfig) *KeywordIndex {
	field := func(p *FieldParams, def FieldParams) bm25f.Field {
		if p == nil {
			p = &def
		}
		return bm25f.Field{Weight: p.Weight, B: p.B}
	}
	k := &KeywordIndex{
		params: bm25f.Params{
			K1: opts.K1,
			Fields: []bm25f.Field{
				field(opts.Name, DefaultNameField),
				field(opts.Description, DefaultDescriptionField),
				field(opts.ParamNames, DefaultParamNamesField),
				field(opts.ParamDescriptions, DefaultParamDescriptionsField),
				field(opts.OutputNames, DefaultOutputNamesField),
				field(opts.OutputDescriptions, DefaultOutputDescriptionsField),
			},
		},
		analyzer: opts.Analyzer,
	}
	if k.params.K1 == 0 {
		k.params.K1 = DefaultK1
	}
	if k.analyzer == nil {
		k.analyzer = English()
	}
	return k
}

// IndexTools implements [Index].
func (k *KeywordIndex) IndexTools(ctx context.Context, session string, defs []tool.Definition) error {
	return k.store.index(ctx, session, defs, func(sorted []tool.Definition) (*keywordSet, error) {
		return &keywordSet{defs: sorted, ix: k.build(sorted)}, nil
	})
}

// outputs reports whether the index weighs what tools return: if not, output schemas are not read.
func (k *KeywordIndex) outputs() bool {
	f := k.params.Fields
	return f[keywordFields-2].Weight != 0 || f[keywordFields-1].Weight != 0
}

// minPerWorker is the fewest tools a build gives a goroutine of its own: below it, starting
// goroutines and merging their vocabularies costs more than it saves.
const minPerWorker = 2048

// build analyses the tools, in parallel for a large set, and builds their index.
func (k *KeywordIndex) build(defs []tool.Definition) *bm25f.Index {
	b := bm25f.NewBuilder(k.params)
	workers := min(runtime.GOMAXPROCS(0), len(defs)/minPerWorker)
	if workers <= 1 {
		var a analysed
		a.analyse(k.analyzer, b, defs, k.outputs())
		a.addTo(b, nil)
		return b.Build()
	}
	// Each worker analyses a run of the tools with terms numbered on its own, then the runs are
	// added in order, their numbers mapped to the builder's: the index is the one a single
	// goroutine would build.
	parts := make([]analysed, workers)
	vocab := make([]localTerms, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := len(defs)*w/workers, len(defs)*(w+1)/workers
		wg.Go(func() {
			vocab[w].ids = make(map[string]int32)
			parts[w].analyse(k.analyzer, &vocab[w], defs[lo:hi], k.outputs())
		})
	}
	wg.Wait()
	for w := range parts {
		global := make([]int32, len(vocab[w].terms))
		for i, t := range vocab[w].terms {
			global[i] = b.Term(t)
		}
		parts[w].addTo(b, global)
	}
	return b.Build()
}

// keywordFields is the number of fields of a tool in the keyword index.
const keywordFields = 6

// analysed holds the term numbers of tools' fields, one tool after the other.
type analysed struct {
	terms []int32
	ends  []int32 // one per field of each tool: where the field ends in terms
}

// termNumbers numbers terms.
type termNumbers interface{ Term(t string) int32 }

// localTerms numbers terms in the order they are first seen.
type localTerms struct {
	ids   map[string]int32
	terms []string
}

func (l *localTerms) Term(t string) int32 {
	id, ok := l.ids[t]
	if !ok {
		id = int32(len(l.terms))
		l.ids[t] = id
		l.terms = append(l.terms, t)
	}
	return id
}

// analyse reads the fields of defs and appends their terms, numbered by num. Output schemas are
// read only when outputs is set (a field weighs them).
func (a *analysed) analyse(an Analyzer, num termNumbers, defs []tool.Definition, outputs bool) {
	c := newTermCache(an, num)
	var r tooldoc.Reader
	// Room for every term at once, so that the numbers are not copied again and again as they
	// grow: a term takes at least 9 bytes of a definition's text in the evaluation's catalogs
	// (BFCL, Seal-Tools, ToolRet; schemas are mostly JSON syntax), 13 in the benchmarks'.
	size := 0
	for _, def := range defs {
		size += len(def.Name) + len(def.Description) + len(def.InputSchema)
		if outputs {
			size += len(def.OutputSchema)
		}
	}
	a.terms = slices.Grow(a.terms, size/8)
	field := func() { a.ends = append(a.ends, int32(len(a.terms))) }
	texts := func(ts []string) {
		for _, t := range ts {
			a.terms = c.terms(a.terms, t)
		}
		field()
	}
	for _, def := range defs {
		var d tooldoc.Doc
		if outputs {
			d = r.WithOutputs(def)
		} else {
			d = r.Of(def)
		}
		a.terms = c.terms(a.terms, d.Name)
		field()
		a.terms = c.terms(a.terms, d.Description)
		field()
		texts(d.ParamNames)
		texts(d.ParamDescriptions)
		texts(d.OutputNames)
		texts(d.OutputDescriptions)
	}
}

// addTo adds the tools to b, their term numbers mapped by global unless it is nil.
func (a *analysed) addTo(b *bm25f.Builder, global []int32) {
	if global != nil {
		for i, t := range a.terms {
			a.terms[i] = global[t]
		}
	}
	var doc [keywordFields][]int32
	start := int32(0)
	for i := 0; i < len(a.ends); i += keywordFields {
		for f := range doc {
			doc[f] = a.terms[start:a.ends[i+f]]
			start = a.ends[i+f]
		}
		b.Add(doc[:])
	}
}

// termCache turns texts into the builder's term numbers while a set is built, remembering what
// it analysed: words repeat across the tools of a catalog, and analysis, stemming above all,
// dominates the cost of building.
type termCache struct {
	b  termNumbers
	an Analyzer
	// ta, when the analyzer is a *TextAnalyzer, is applied token by token (a word, or a part of
	// an identifier), each distinct lower-cased token analysed once: identifiers are mostly
	// unique, their parts are words. Other analyzers see whole texts, short ones once.
	ta    *TextAnalyzer
	seen  map[string]int32   // lower-cased token → term, or -1 for none (a stop word)
	texts map[string][]int32 // short text → terms, for other analyzers
	strs  []string
	parts []string
	lower []byte
}

func newTermCache(an Analyzer, b termNumbers) *termCache {
	c := &termCache{b: b, an: an}
	if c.ta, _ = an.(*TextAnalyzer); c.ta != nil {
		c.seen = make(map[string]int32)
	} else {
		c.texts = make(map[string][]int32)
	}
	return c
}

// terms appends the term numbers of text to dst, the numbers of the terms the analyzer gives.
func (c *termCache) terms(dst []int32, text string) []int32 {
	if c.ta == nil {
		if len(text) > 64 {
			c.strs = c.an.Terms(c.strs[:0], text)
			return c.number(dst, c.strs)
		}
		ids, ok := c.texts[text]
		if !ok {
			ids = c.number(nil, c.an.Terms(nil, text))
			c.texts[text] = ids
		}
		return append(dst, ids...)
	}
	// As TextAnalyzer.Terms and wordTerms do, token by token.
	for i := 0; ; {
		var word string
		if word, i = c.ta.nextWord(text, i); word == "" {
			return dst
		}
		if !c.ta.SplitIdentifiers {
			dst = c.token(dst, word)
			continue
		}
		c.parts = splitIdentifier(c.parts[:0], word)
		for _, p := range c.parts {
			dst = c.token(dst, p)
		}
		if c.ta.KeepJoined && len(c.parts) > 1 {
			dst = c.token(dst, strings.Join(c.parts, ""))
		}
	}
}

// token appends the term of one token: lower-cased, dropped if a stop word, stemmed.
func (c *termCache) token(dst []int32, tok string) []int32 {
	id, ok := int32(0), false
	ascii := true
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var lower string
	if ascii {
		c.lower = c.lower[:0]
		for i := 0; i < len(tok); i++ {
			ch := tok[i]
			if 'A' <= ch && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			c.lower = append(c.lower, ch)
		}
		id, ok = c.seen[string(c.lower)] // no allocation to look up
	} else {
		lower = strings.ToLower(tok)
		id, ok = c.seen[lower]
	}
	if !ok {
		if ascii {
			lower = string(c.lower)
		}
		id = -1
		if c.strs = c.ta.emit(c.strs[:0], lower); len(c.strs) > 0 {
			id = c.b.Term(c.strs[0])
		}
		c.seen[lower] = id
	}
	if id < 0 {
		return dst
	}
	return append(dst, id)
}

func (c *termCache) number(dst []int32, terms []string) []int32 {
	for _, t := range terms {
		dst = append(dst, c.b.Term(t))
	}
	return dst
}

// Search implements [Index]. A query with no term the analyzer keeps (only stop words, say)
// finds nothing.
func (k *KeywordIndex) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	set, err := k.store.get(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	terms := k.analyzer.Terms(nil, req.Query)
	var keep func(int) bool
	if req.Filter != nil {
		keep = func(doc int) bool { return req.Filter(set.defs[doc]) }
	}
	return hitsOf(set.defs, set.ix.Search(terms, req.limit(), keep)), nil
}

// Clear implements [Index].
func (k *KeywordIndex) Clear(_ context.Context, session string) error {
	k.store.clear(session)
	return nil
}
