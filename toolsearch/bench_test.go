package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch/internal/topk"
)

var benchSizes = []int{1000, 10000, 50000}

// benchSearch runs the index's searches over the synthetic queries and reports per-query
// percentiles of wall-clock time (p50-ns, p99-ns) and, where the OS tells, of the thread's CPU
// time (p50-cpu-ns, p99-cpu-ns), besides ns/op. Run with -cpu 1 for the one-core figures.
func benchSearch(b *testing.B, ix Index, s synthetic) {
	ctx := context.Background()
	if err := ix.IndexTools(ctx, "bench", s.tools); err != nil {
		b.Fatal(err)
	}
	runtime.LockOSThread() // the thread's CPU clock must be this goroutine's
	defer runtime.UnlockOSThread()
	lat := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0, okCPU := threadCPU()
		start := time.Now()
		if _, err := ix.Search(ctx, SearchRequest{Session: "bench", Query: s.queries[i%len(s.queries)]}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if c1, ok := threadCPU(); ok && okCPU {
			cpu = append(cpu, time.Duration(c1-c0))
		}
	}
	b.StopTimer()
	reportPercentiles(b, lat, "")
	if len(cpu) > 0 {
		reportPercentiles(b, cpu, "cpu-")
	}
}

func reportPercentiles(b *testing.B, lat []time.Duration, kind string) {
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))]) }
	b.ReportMetric(p(0.50), "p50-"+kind+"ns")
	b.ReportMetric(p(0.99), "p99-"+kind+"ns")
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		s := newSynthetic(n, 500, 1)
		b.Run(fmt.Sprintf("keyword/tools=%d", n), func(b *testing.B) { benchSearch(b, NewKeywordIndex(nil), s) })
		b.Run(fmt.Sprintf("baseline-scan/tools=%d", n), func(b *testing.B) { benchSearch(b, newScanIndex(), s) })
		b.Run(fmt.Sprintf("regex/tools=%d", n), func(b *testing.B) {
			rs := s
			rs.queries = regexQueries(s)
			benchSearch(b, NewRegexIndex(), rs)
		})
		b.Run(fmt.Sprintf("vector-hashing/tools=%d", n), func(b *testing.B) {
			benchSearch(b, NewVectorIndex(&HashingEmbedder{}, nil), s)
		})
	}
}

// regexQueries turns the synthetic queries into patterns a model would write: two words of the
// query (not stop words) as alternatives.
func regexQueries(s synthetic) []string {
	out := make([]string, len(s.queries))
	for i, q := range s.queries {
		var w []string
		for _, f := range strings.Fields(q) {
			if !slices.Contains(synthStop, f) {
				w = append(w, f)
			}
		}
		if len(w) == 0 {
			w = strings.Fields(q)
		}
		out[i] = w[0] + "|" + w[len(w)-1]
	}
	return out
}

// scanIndex is the baseline of the search benchmark: what a search without an index does,
// counting for each tool the query words its lower-cased text contains.
type scanIndex struct {
	names []string
	texts []string
}

func newScanIndex() *scanIndex { return &scanIndex{} }

func (x *scanIndex) IndexTools(_ context.Context, _ string, defs []tool.Definition) error {
	for _, d := range defs {
		x.names = append(x.names, d.Name)
		x.texts = append(x.texts, strings.ToLower(d.Name+" "+d.Description+" "+string(d.InputSchema)))
	}
	return nil
}

func (x *scanIndex) Search(_ context.Context, req SearchRequest) ([]Hit, error) {
	words := strings.Fields(strings.ToLower(req.Query))
	var top topk.Heap
	for i, t := range x.texts {
		n := 0
		for _, w := range words {
			if strings.Contains(t, w) {
				n++
			}
		}
		if n > 0 {
			top.Offer(topk.Item{ID: i, Score: float64(n)}, req.limit())
		}
	}
	var hits []Hit
	for _, it := range top.Sorted() {
		hits = append(hits, Hit{Name: x.names[it.ID], Score: it.Score})
	}
	return hits, nil
}

func (x *scanIndex) Clear(context.Context, string) error { return nil }

// BenchmarkIndexBuild measures building a session's index, reported per 1,000 tools and, where
// the OS tells, in CPU time of the process (cpu-ns/op), which leaves out waiting for a core. The
// baseline encodes the definitions as JSON once, as a request sending them all would.
func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range benchSizes {
		s := newSynthetic(n, 1, 2)
		b.Run(fmt.Sprintf("baseline-marshal/tools=%d", n), func(b *testing.B) {
			cpu := startCPU()
			for i := 0; i < b.N; i++ {
				if _, err := json.Marshal(s.tools); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("prerequisites/tools=%d", n), func(b *testing.B) {
			// Every tool requires its parameters and returns one value, which others require:
			// the prerequisites of a set are read at its first search, beside its index.
			defs := slices.Clone(s.tools)
			for i := range defs {
				var in struct {
					Properties map[string]json.RawMessage `json:"properties"`
				}
				if err := json.Unmarshal(defs[i].InputSchema, &in); err != nil {
					b.Fatal(err)
				}
				req := slices.Sorted(maps.Keys(in.Properties))
				schema := map[string]any{"type": "object", "properties": in.Properties, "required": req}
				defs[i].InputSchema, _ = json.Marshal(schema)
				defs[i].OutputSchema, _ = json.Marshal(map[string]any{"type": "object",
					"properties": map[string]any{req[0]: map[string]any{"type": "string"}}})
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := startCPU()
			for i := 0; i < b.N; i++ {
				NewPrerequisites(defs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)*1000, "ns/1k-tools")
			cpu.report(b)
		})
		for _, kind := range []string{"keyword", "regex", "vector-hashing"} {
			b.Run(fmt.Sprintf("%s/tools=%d", kind, n), func(b *testing.B) {
				ctx := context.Background()
				b.ReportAllocs()
				cpu := startCPU()
				for i := 0; i < b.N; i++ {
					var ix Index
					switch kind {
					case "keyword":
						ix = NewKeywordIndex(nil)
					case "regex":
						ix = NewRegexIndex()
					default:
						ix = NewVectorIndex(&HashingEmbedder{}, nil)
					}
					if err := ix.IndexTools(ctx, "s", s.tools); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)*1000, "ns/1k-tools")
				cpu.report(b)
			})
		}
	}
}

// BenchmarkSessionMemory reports the heap one more session's index holds: with a tool set of
// its own (every session different), and with the tool set other sessions already have.
func BenchmarkSessionMemory(b *testing.B) {
	for _, n := range []int{100, 1000} {
		s := newSynthetic(n, 1, 3)
		for _, shared := range []bool{false, true} {
			name := fmt.Sprintf("keyword/tools=%d/own-set", n)
			if shared {
				name = fmt.Sprintf("keyword/tools=%d/shared-set", n)
			}
			b.Run(name, func(b *testing.B) {
				const sessions = 20
				ctx := context.Background()
				var perSession float64
				for i := 0; i < b.N; i++ {
					ix := NewKeywordIndex(nil)
					sets := make([][]tool.Definition, sessions)
					for j := range sets {
						sets[j] = s.tools
						if !shared { // a different catalog: one tool renamed
							sets[j] = slices.Clone(s.tools)
							sets[j][0].Name = fmt.Sprintf("renamed%d", j)
						}
					}
					// A first session exists already, so a shared set is built before measuring.
					if err := ix.IndexTools(ctx, "first", s.tools); err != nil {
						b.Fatal(err)
					}
					before := heapInUse()
					for j := range sessions {
						if err := ix.IndexTools(ctx, fmt.Sprint("s", j), sets[j]); err != nil {
							b.Fatal(err)
						}
					}
					perSession = float64(heapInUse()-before) / sessions
					runtime.KeepAlive(ix)
					runtime.KeepAlive(sets)
				}
				b.ReportMetric(perSession, "bytes/session")
			})
		}
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// cpuClock reports, when stopped, the process CPU time per iteration since it started
// (cpu-ns/op): on a shared machine, the cost without the time spent waiting for a core.
type cpuClock struct {
	start int64
	ok    bool
}

func startCPU() cpuClock {
	c, ok := processCPU()
	return cpuClock{c, ok}
}

func (c cpuClock) report(b *testing.B) {
	if now, ok := processCPU(); ok && c.ok {
		b.ReportMetric(float64(now-c.start)/float64(b.N), "cpu-ns/op")
	}
}

// turnSetUp runs what the advisor does to start and end a turn that does not search: read the
// request's tools or its catalog, take hold of the session and its indexed tool set, let go.
func turnSetUp(b *testing.B, a *Advisor, req *client.Request) {
	ctx := context.Background()
	t, err := a.begin(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	if err := t.set.ensureIndexed(ctx, a.index, t.defs); err != nil {
		b.Fatal(err)
	}
	a.end(ctx, t)
}

// BenchmarkTurnStart measures the advisor's cost of starting a turn in a conversation whose
// tools did not change: with a Catalog it does not depend on the number of tools; with the
// request's tools it reads every definition and compares it with the last turn's. The baselines
// hash every definition (the same turns with no fingerprint of an earlier turn) and encode the
// definitions as JSON, which sending them to a model would cost.
func BenchmarkTurnStart(b *testing.B) {
	for _, n := range benchSizes {
		s, tools, cat := syntheticCatalog(b, n, 4)
		params := map[string]any{client.ParamConversationID: "c"}
		b.Run(fmt.Sprintf("catalog/tools=%d", n), func(b *testing.B) {
			benchTurnStarts(b, New(Config{Catalog: cat}), &client.Request{Prompt: chat.Prompt{Options: &chat.Options{}}, Params: params}, nil)
		})
		b.Run(fmt.Sprintf("request-tools/tools=%d", n), func(b *testing.B) {
			benchTurnStarts(b, New(Config{}), &client.Request{Prompt: chat.Prompt{Options: &chat.Options{Tools: tools}}, Params: params}, nil)
		})
		b.Run(fmt.Sprintf("baseline-hash/tools=%d", n), func(b *testing.B) {
			// The same turns with the fingerprints forgotten: every definition hashed.
			a := New(Config{})
			benchTurnStarts(b, a, &client.Request{Prompt: chat.Prompt{Options: &chat.Options{Tools: tools}}, Params: params}, a.forgetFingerprints)
		})
		b.Run(fmt.Sprintf("baseline-marshal/tools=%d", n), func(b *testing.B) {
			cpu := startCPU()
			for range b.N {
				if _, err := json.Marshal(s.tools); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
		})
	}
}

// syntheticCatalog returns n synthetic tools (seeded by seed) as definitions, as tools that
// do nothing, and as a Catalog.
func syntheticCatalog(b *testing.B, n int, seed uint64) (synthetic, []tool.Tool, *Catalog) {
	b.Helper()
	s := newSynthetic(n, 1, seed)
	tools := make([]tool.Tool, n)
	for i, d := range s.tools {
		tools[i] = tool.Must(tool.New(d, func(context.Context, map[string]any) (any, error) { return nil, nil }))
	}
	cat, err := NewCatalog(tools...)
	if err != nil {
		b.Fatal(err)
	}
	return s, tools, cat
}

// benchTurnStarts times turns of a on req after a first one (which indexes), running before,
// if set, ahead of each.
func benchTurnStarts(b *testing.B, a *Advisor, req *client.Request, before func()) {
	turnSetUp(b, a, req)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		if before != nil {
			before()
		}
		turnSetUp(b, a, req)
	}
	cpu.report(b)
}

// forgetFingerprints drops the fingerprints of earlier turns, so that the next turn hashes its
// tools.
func (a *Advisor) forgetFingerprints() {
	a.print.Store(nil)
	a.sets.mu.Lock()
	for _, set := range a.sets.byID {
		set.print.Store(nil)
	}
	a.sets.mu.Unlock()
}

// BenchmarkNewSession measures starting the first turn of a new conversation on tools other
// conversations already use: the tool set is shared, not built again. The baseline builds the
// keyword index of the tools, what a session of its own would cost.
func BenchmarkNewSession(b *testing.B) {
	for _, n := range benchSizes {
		s, tools, cat := syntheticCatalog(b, n, 6)
		run := func(b *testing.B, cfg Config, opts *chat.Options) {
			a := New(cfg)
			first := &client.Request{Prompt: chat.Prompt{Options: opts}, Params: map[string]any{client.ParamConversationID: "first"}}
			turnSetUp(b, a, first) // another conversation indexed the tools
			reqs := make([]*client.Request, b.N)
			for i := range reqs {
				reqs[i] = &client.Request{Prompt: chat.Prompt{Options: opts}, Params: map[string]any{client.ParamConversationID: fmt.Sprint("conv", i)}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := startCPU()
			for _, req := range reqs {
				turnSetUp(b, a, req)
			}
			cpu.report(b)
		}
		b.Run(fmt.Sprintf("catalog/tools=%d", n), func(b *testing.B) {
			run(b, Config{Catalog: cat, Eviction: Never()}, &chat.Options{})
		})
		b.Run(fmt.Sprintf("request-tools/tools=%d", n), func(b *testing.B) {
			run(b, Config{Eviction: Never()}, &chat.Options{Tools: tools})
		})
		b.Run(fmt.Sprintf("baseline-build/tools=%d", n), func(b *testing.B) {
			cpu := startCPU()
			for range b.N {
				if err := NewKeywordIndex(nil).IndexTools(context.Background(), "s", s.tools); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkTurn measures the library's cost of one turn over a catalog of 1,000 tools with a
// scripted model: the plain tool loop sending every tool (the baseline), and the advisor, which
// fingerprints the catalog, searches and sends what it found. Model latency is not included.
func BenchmarkTurn(b *testing.B) {
	s := newSynthetic(1000, 1, 5)
	tools := make([]any, len(s.tools))
	for i, d := range s.tools {
		tools[i] = tool.Must(tool.New(d, func(context.Context, map[string]any) (any, error) { return "ok", nil }))
	}
	target := s.tools[17]
	query := strings.Join(strings.Fields(target.Description)[:6], " ")
	ctx := context.Background()
	b.Run("baseline-all-tools", func(b *testing.B) {
		model := chattest.New(chattest.Calls(chattest.Call(target.Name, `{}`)), chattest.Text("done")).Repeat().DiscardPrompts()
		c := clienttest.New(b, model)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := c.Prompt("x").Tools(tools...).Call(ctx).Content(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("advisor", func(b *testing.B) {
		model := chattest.New(
			chattest.Calls(chattest.Call(SearchToolName, fmt.Sprintf(`{"query":%q}`, query))),
			chattest.Calls(chattest.Call(target.Name, `{}`)),
			chattest.Text("done"),
		).Repeat().DiscardPrompts()
		c := clienttest.New(b, model, client.WithAdvisors(New(Config{})))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := c.Prompt("x").Tools(tools...).Param(client.ParamConversationID, "bench").Call(ctx).Content(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
