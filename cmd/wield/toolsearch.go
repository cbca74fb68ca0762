package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/toolsearch"
)

func (a *app) registerToolSearchFlag(cmd *cobra.Command, on *bool) {
	cmd.Flags().BoolVar(on, "tool-search", false, "offer the model one search tool instead of every tool; the tools it finds become callable (for large catalogs)")
}

// toolSearchAdvisor puts the catalog behind the Tool Search Tool: it replaces the client's tool
// loop with one that offers the model the search tool and adds the tools it finds.
func (a *app) toolSearchAdvisor(loop client.ToolLoopConfig) client.Advisor {
	return toolsearch.New(toolsearch.Config{Loop: loop})
}

func (a *app) toolsSearchCommand() *cobra.Command {
	var (
		flags  toolFlags
		max    int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the available tools with the keyword index a chat's --tool-search uses",
		Long: `search ranks the available tools (built-in and those of --mcp-config) against QUERY with the
keyword index (BM25 over names, descriptions and parameters) that --tool-search gives a model, and
prints the best matches.`,
		Example: `  wield tools search "what time is it"
  wield tools search --mcp-config mcp.json --max 10 "read a file"`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if max < 1 || max > toolsearch.MaxSearchResults {
				return usagef("--max must be between 1 and %d", toolsearch.MaxSearchResults)
			}
			ctx := cmd.Context()
			c, err := a.loadCatalog(ctx, flags, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			ix := toolsearch.NewKeywordIndex(nil)
			const session = "wield tools search"
			if err := ix.IndexTools(ctx, session, c.definitions()); err != nil {
				return err
			}
			hits, err := ix.Search(ctx, toolsearch.SearchRequest{Session: session, Query: args[0], MaxResults: max})
			if err != nil {
				return err
			}
			if asJSON {
				type hit struct {
					Name        string  `json:"name"`
					Score       float64 `json:"score"`
					Source      string  `json:"source"`
					Description string  `json:"description,omitempty"`
				}
				out := make([]hit, 0, len(hits))
				for _, h := range hits {
					t, _ := c.lookup(h.Name)
					out = append(out, hit{h.Name, h.Score, c.sources[h.Name], t.Definition().Description})
				}
				return writeJSON(a.stdout, out)
			}
			if len(hits) == 0 {
				fmt.Fprintf(a.stderr, "no tool matches %q\n", args[0])
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, h := range hits {
				t, _ := c.lookup(h.Name)
				fmt.Fprintf(tw, "%s\t%.2f\t%s\t%s\n", safeLine(h.Name), h.Score, safeLine(c.sources[h.Name]), safeLine(oneLine(firstLine(t.Definition().Description), 80)))
			}
			return tw.Flush()
		},
	}
	flags.register(cmd)
	cmd.Flags().IntVarP(&max, "max", "n", toolsearch.DefaultMaxResults, "most tools to show")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of {name, score, source, description}")
	return cmd
}
