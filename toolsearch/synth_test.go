package toolsearch

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// synthetic builds a deterministic catalog of n tools with the shape of real ones: camelCase
// names of a verb and one or two nouns, descriptions of 10 to 30 words drawn from a Zipf-like
// vocabulary, two to five documented parameters. Queries are 4 to 10 words, most taken from one
// tool's description, with some stop words, as a model writes them.
type synthetic struct {
	tools   []tool.Definition
	queries []string
}

var (
	synthVerbs = []string{"get", "list", "create", "update", "delete", "search", "send", "fetch", "compute", "convert",
		"find", "check", "book", "cancel", "translate", "summarize", "upload", "download", "schedule", "validate"}
	synthStop = []string{"the", "a", "for", "of", "with", "in", "to", "and", "my", "please"}
)

func synthWord(r *rand.Rand, vocab []string) string {
	// Zipf-like: low indexes are far more frequent.
	i := int(float64(len(vocab)) * r.Float64() * r.Float64() * r.Float64())
	return vocab[i]
}

func newSynthetic(n, queries int, seed uint64) synthetic {
	r := rand.New(rand.NewPCG(seed, 7))
	syll := []string{"ka", "lo", "mi", "ter", "sun", "por", "vel", "dra", "nex", "qui", "zor", "bel", "fin", "gra", "hul"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = fmt.Sprintf("%s%d", b.String(), i%97)
	}
	var s synthetic
	seen := map[string]bool{}
	descs := make([][]string, 0, n)
	for len(s.tools) < n {
		noun := synthWord(r, vocab)
		name := synthVerbs[r.IntN(len(synthVerbs))] + strings.ToUpper(noun[:1]) + noun[1:]
		if r.IntN(2) == 0 {
			name += "_" + synthWord(r, vocab)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		words := make([]string, 10+r.IntN(21))
		for i := range words {
			if i%4 == 3 {
				words[i] = synthStop[r.IntN(len(synthStop))]
			} else {
				words[i] = synthWord(r, vocab)
			}
		}
		props := map[string]any{}
		for range 2 + r.IntN(4) {
			pdesc := make([]string, 3+r.IntN(8))
			for i := range pdesc {
				pdesc[i] = synthWord(r, vocab)
			}
			props[synthWord(r, vocab)+"_"+synthWord(r, vocab)] = map[string]any{"type": "string", "description": strings.Join(pdesc, " ")}
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		s.tools = append(s.tools, tool.Definition{Name: name, Description: strings.Join(words, " "), InputSchema: schema})
		descs = append(descs, words)
	}
	for range queries {
		words := descs[r.IntN(len(descs))]
		q := make([]string, 4+r.IntN(7))
		for i := range q {
			if i%3 == 2 {
				q[i] = synthStop[r.IntN(len(synthStop))]
			} else if r.IntN(5) == 0 {
				q[i] = synthWord(r, vocab)
			} else {
				q[i] = words[r.IntN(len(words))]
			}
		}
		s.queries = append(s.queries, strings.Join(q, " "))
	}
	return s
}
