package main

import (
	"context"
	"regexp"
	"strings"

	"github.com/kljensen/snowball/english"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
	"github.com/wield-ai/wield/toolsearch/internal/bm25f"
	"github.com/wield-ai/wield/toolsearch/internal/tooldoc"
)

// Searcher ranks a built corpus for a query: up to k tools, best first.
type Searcher func(query string, k int) ([]toolsearch.Hit, error)

// System is a way of ranking tools under evaluation.
type System struct {
	Name  string
	Build func(tools []tool.Definition) (Searcher, error)
	// Public is set for the package's indexes as a user calls them.
	Public bool
}

// engine is a configuration of the BM25F engine the keyword index is built on, open to the
// ablation: one combined field or six, any analyzer, any parameters.
type engine struct {
	analyzer toolsearch.Analyzer
	// single indexes name, description, parameter names and parameter descriptions (and, with
	// outputs, the output schema's) as one text (classic BM25) with B; otherwise fields weighs
	// the six fields in the keyword index's order.
	single bool
	// json, with single, indexes the name, description and raw JSON Schema text instead.
	json bool
	// outputs, with single, indexes the output schema's text too.
	outputs bool
	k1, b   float64
	fields  [6]bm25f.Field
}

func (e engine) system(name string) System {
	return System{Name: name, Build: e.build}
}

func (e engine) build(tools []tool.Definition) (Searcher, error) {
	return e.index(tools, e.analyze(tools)), nil
}

// analyze turns the tools into documents of terms, the costly part of building.
func (e engine) analyze(tools []tool.Definition) []bm25f.Doc {
	docs := make([]bm25f.Doc, len(tools))
	terms := func(texts ...string) []string {
		var out []string
		for _, t := range texts {
			out = e.analyzer.Terms(out, t)
		}
		return out
	}
	var r tooldoc.Reader
	for i, t := range tools {
		d := r.WithOutputs(t)
		if e.single && e.json {
			docs[i] = bm25f.Doc{terms(t.Name, t.Description, string(t.InputSchema))}
			continue
		}
		if e.single {
			all := append([]string{d.Name, d.Description}, d.ParamNames...)
			all = append(all, d.ParamDescriptions...)
			if e.outputs {
				all = append(append(all, d.OutputNames...), d.OutputDescriptions...)
			}
			docs[i] = bm25f.Doc{terms(strings.Join(all, " "))}
			continue
		}
		docs[i] = bm25f.Doc{terms(d.Name), terms(d.Description), terms(d.ParamNames...), terms(d.ParamDescriptions...),
			terms(d.OutputNames...), terms(d.OutputDescriptions...)}
	}
	return docs
}

// index builds the engine over analysed documents.
func (e engine) index(tools []tool.Definition, docs []bm25f.Doc) Searcher {
	p := bm25f.Params{K1: e.k1, Fields: e.fields[:]}
	if e.single {
		p.Fields = []bm25f.Field{{Weight: 1, B: e.b}}
	}
	ix := bm25f.Build(docs, p)
	return func(q string, k int) ([]toolsearch.Hit, error) {
		hits := ix.Search(e.analyzer.Terms(nil, q), k, nil)
		out := make([]toolsearch.Hit, len(hits))
		for i, h := range hits {
			out[i] = toolsearch.Hit{Name: tools[h.ID].Name, Score: h.Score}
		}
		return out, nil
	}
}

// indexSystem evaluates a public toolsearch.Index as a user would call it.
func indexSystem(name string, newIndex func() toolsearch.Index) System {
	return System{Name: name, Public: true, Build: func(tools []tool.Definition) (Searcher, error) {
		ix := newIndex()
		ctx := context.Background()
		if err := ix.IndexTools(ctx, "eval", tools); err != nil {
			return nil, err
		}
		return func(q string, k int) ([]toolsearch.Hit, error) {
			return ix.Search(ctx, toolsearch.SearchRequest{Session: "eval", Query: q, MaxResults: k})
		}, nil
	}}
}

func field(w float64, b float64) bm25f.Field { return bm25f.Field{Weight: w, B: b} }

func defaults() [6]bm25f.Field {
	f := func(p toolsearch.FieldParams) bm25f.Field { return field(p.Weight, p.B) }
	return [6]bm25f.Field{f(toolsearch.DefaultNameField), f(toolsearch.DefaultDescriptionField),
		f(toolsearch.DefaultParamNamesField), f(toolsearch.DefaultParamDescriptionsField),
		f(toolsearch.DefaultOutputNamesField), f(toolsearch.DefaultOutputDescriptionsField)}
}

// inputsOnly is fs without the output schema's fields: the keyword index before it read them.
func inputsOnly(fs [6]bm25f.Field) [6]bm25f.Field {
	fs[4], fs[5] = bm25f.Field{}, bm25f.Field{}
	return fs
}

// Analyzers of the ablation, each adding one step to the one before.
var (
	// bm25sAnalyzer is the default of the bm25s Python library with an English stemmer, the
	// configuration closest to the README's baseline figures.
	bm25sAnalyzer = reAnalyzer{re: regexp.MustCompile(`\w\w+`), stop: english.IsStopWord, stem: toolsearch.English().Stem}
	plainAnalyzer = &toolsearch.TextAnalyzer{}
	splitAnalyzer = &toolsearch.TextAnalyzer{SplitIdentifiers: true}
	stemAnalyzer  = &toolsearch.TextAnalyzer{SplitIdentifiers: true, Stem: toolsearch.English().Stem}
	fullAnalyzer  = toolsearch.English()
	joinAnalyzer  = func() *toolsearch.TextAnalyzer { a := toolsearch.English(); a.KeepJoined = true; return a }()
	noSplit       = func() *toolsearch.TextAnalyzer { a := toolsearch.English(); a.SplitIdentifiers = false; return a }()
	noStem        = func() *toolsearch.TextAnalyzer { a := toolsearch.English(); a.Stem = nil; return a }()
	noStop        = func() *toolsearch.TextAnalyzer { a := toolsearch.English(); a.StopWords = nil; return a }()
)

// systems returns the systems of the report: the ablation from plain BM25 to the keyword index,
// each part taken out of the full index again, and the other indexes.
func systems() []System {
	k1, b := toolsearch.DefaultK1, toolsearch.DefaultB
	equal := [6]bm25f.Field{field(1, b), field(1, b), field(1, b), field(1, b), field(1, b), field(1, b)}
	in := inputsOnly(defaults())
	return []System{
		engine{analyzer: bm25sAnalyzer, single: true, k1: 1.2, b: 0.75}.system("BM25, one field, \\w\\w+ words, stop words, stemming"),
		engine{analyzer: bm25sAnalyzer, single: true, json: true, k1: 1.2, b: 0.75}.system("  same over name, description and schema JSON"),
		engine{analyzer: plainAnalyzer, single: true, k1: 1.2, b: 0.75}.system("plain BM25 (one field, \\w+ words)"),
		engine{analyzer: plainAnalyzer, k1: k1, fields: inputsOnly(equal)}.system("+ fields (BM25F, equal weights)"),
		engine{analyzer: plainAnalyzer, k1: k1, fields: in}.system("+ field weights"),
		engine{analyzer: splitAnalyzer, k1: k1, fields: in}.system("+ identifier splitting"),
		engine{analyzer: stemAnalyzer, k1: k1, fields: in}.system("+ stemming"),
		engine{analyzer: fullAnalyzer, k1: k1, fields: in}.system("+ stop words"),
		engine{analyzer: fullAnalyzer, k1: k1, fields: defaults()}.system("+ output schemas (= keyword index)"),
		indexSystem("KeywordIndex defaults (public API)", func() toolsearch.Index { return must(toolsearch.NewKeyword(toolsearch.KeywordConfig{})) }),
		engine{analyzer: joinAnalyzer, k1: k1, fields: defaults()}.system("  with joined identifiers too"),
		engine{analyzer: fullAnalyzer, single: true, outputs: true, k1: k1, b: b}.system("  without fields (one field)"),
		engine{analyzer: fullAnalyzer, k1: k1, fields: equal}.system("  without field weights"),
		engine{analyzer: noSplit, k1: k1, fields: defaults()}.system("  without identifier splitting"),
		engine{analyzer: noStem, k1: k1, fields: defaults()}.system("  without stemming"),
		engine{analyzer: noStop, k1: k1, fields: defaults()}.system("  without stop words"),
		indexSystem("VectorIndex, HashingEmbedder 512", func() toolsearch.Index {
			return must(toolsearch.NewVector(&toolsearch.HashingEmbedder{}, toolsearch.VectorConfig{}))
		}),
	}
}

// must returns ix, failing the evaluation on a construction error: the settings are the
// program's own.
func must[T any](ix T, err error) T {
	if err != nil {
		panic(err)
	}
	return ix
}
