package toolsearch

import (
	"context"

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
// what a tool takes than what it does.
var (
	DefaultNameField              = FieldParams{Weight: 2, B: DefaultB}
	DefaultDescriptionField       = FieldParams{Weight: 1, B: DefaultB}
	DefaultParamNamesField        = FieldParams{Weight: 0.5, B: DefaultB}
	DefaultParamDescriptionsField = FieldParams{Weight: 0.5, B: DefaultB}
)

// KeywordOptions configure a [KeywordIndex]. The zero value gives the defaults.
type KeywordOptions struct {
	// K1 is BM25's term-frequency saturation; zero means DefaultK1.
	K1 float64
	// Name, Description, ParamNames and ParamDescriptions weigh the four fields of a tool
	// definition; nil means the field's default (DefaultNameField and so on).
	Name              *FieldParams
	Description       *FieldParams
	ParamNames        *FieldParams
	ParamDescriptions *FieldParams
	// Analyzer turns text into terms; nil means [English].
	Analyzer Analyzer
}

// KeywordIndex is an [Index] that ranks tools with BM25F over four fields of their definitions:
// name, description, parameter names and parameter descriptions (nested parameters included).
// Text is analysed by an [Analyzer]: by default identifiers are split (camelCase, snake_case,
// kebab-case, dotted.names), stop words dropped and words stemmed, so "get the weather forecast"
// finds getWeatherForecasts.
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

// NewKeywordIndex returns an empty keyword index. opts may be nil.
func NewKeywordIndex(opts *KeywordOptions) *KeywordIndex {
	if opts == nil {
		opts = &KeywordOptions{}
	}
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
	if err := ctx.Err(); err != nil {
		return err
	}
	sorted, err := sortDefs(defs)
	if err != nil {
		return err
	}
	return k.store.put(session, contentKey(sorted), func() (*keywordSet, error) {
		return &keywordSet{defs: sorted, ix: k.build(sorted)}, nil
	})
}

func (k *KeywordIndex) build(defs []tool.Definition) *bm25f.Index {
	an := cachingAnalyzer{Analyzer: memoized(k.analyzer), seen: make(map[string][]string)}
	docs := make([]bm25f.Doc, len(defs))
	for i, def := range defs {
		d := tooldoc.Of(def)
		docs[i] = bm25f.Doc{
			an.terms(nil, d.Name),
			an.terms(nil, d.Description),
			an.all(d.ParamNames),
			an.all(d.ParamDescriptions),
		}
	}
	return bm25f.Build(docs, k.params)
}

// cachingAnalyzer remembers the terms of texts seen before while a set is built: parameter names
// and descriptions repeat across the tools of a catalog, and stemming dominates build time.
type cachingAnalyzer struct {
	Analyzer
	seen map[string][]string
}

func (c cachingAnalyzer) terms(dst []string, text string) []string {
	if len(text) <= 64 {
		if ts, ok := c.seen[text]; ok {
			return append(dst, ts...)
		}
		ts := c.Terms(nil, text)
		c.seen[text] = ts
		return append(dst, ts...)
	}
	return c.Terms(dst, text)
}

func (c cachingAnalyzer) all(texts []string) []string {
	var out []string
	for _, t := range texts {
		out = c.terms(out, t)
	}
	return out
}

// Search implements [Index]. A query with no term the analyzer keeps (only stop words, say)
// finds nothing.
func (k *KeywordIndex) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	set, err := k.store.get(req.Session)
	if err != nil {
		return nil, err
	}
	terms := k.analyzer.Terms(nil, req.Query)
	var keep func(int) bool
	if req.Filter != nil {
		keep = func(doc int) bool { return req.Filter(set.defs[doc]) }
	}
	found := set.ix.Search(terms, req.limit(), keep)
	hits := make([]Hit, len(found))
	for i, f := range found {
		hits[i] = Hit{Name: set.defs[f.ID].Name, Score: f.Score}
	}
	return hits, nil
}

// Clear implements [Index].
func (k *KeywordIndex) Clear(_ context.Context, session string) error {
	k.store.clear(session)
	return nil
}
