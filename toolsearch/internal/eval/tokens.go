package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// tokens estimates the tokens of tool definitions as a provider receives them (the OpenAI
// function-tool JSON), at four characters a token.
func tokens(defs ...tool.Definition) int {
	n := 0
	for _, d := range defs {
		b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]any{
			"name": d.Name, "description": d.Description, "parameters": d.InputSchema,
		}})
		n += len(b)
	}
	return (n + 3) / 4
}

// catalogSizes are the catalog sizes of the token table; 0 stands for the whole catalog.
var catalogSizes = []int{50, 100, 200, 0}

// tokenTable prints, for catalogs of several sizes drawn from the BFCL pool and from
// Seal-Tools, the definitions' tokens sent without the search tool (all of them, on every
// request) and with it (its own definition and the system-prompt suffix alone on the first
// request; with the five tools one search found on the next ones).
func tokenTable(w io.Writer, sets []*Dataset) error {
	search := toolsearch.SearchToolDefinition("")
	// The advisor's system-prompt suffix is sent too.
	first := tokens(search) + (len(toolsearch.DefaultSystemPrompt)+3)/4
	fmt.Fprintln(w, "## Tool-definition tokens per request (characters/4, OpenAI function JSON)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| catalog | tools | without search | with search: first request | after one search returning 5 | saved after one search |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	seen := map[string]bool{}
	for _, ds := range sets {
		name := ds.Name
		if name == "seal-dev" || name == "seal-test-in-domain" {
			name = "seal-tools" // one catalog
		}
		if seen[name] || (name != "bfcl-pool" && name != "seal-tools") {
			continue
		}
		seen[name] = true
		// A fixed shuffle, so that a catalog of 50 is not 50 neighbours of one domain.
		tools := append([]tool.Definition(nil), ds.Tools...)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		for _, size := range catalogSizes {
			if size == 0 || size > len(tools) {
				size = len(tools)
			}
			cat := tools[:size]
			all := tokens(cat...)
			// Five tools of average size stand for what one search finds.
			after := first + 5*all/size
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f%% |\n", name, size, all, first, after,
				100*(1-float64(after)/float64(all)))
			if size == len(tools) {
				break
			}
		}
	}
	return nil
}
