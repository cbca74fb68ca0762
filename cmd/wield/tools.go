package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/tool"
)

func (a *app) toolsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List, call and search tools without a model",
		Long: `tools works with the tools a chat would offer, without any model: the built-in ones and those of
the MCP servers in --mcp-config.`,
		Example: `  wield tools list
  wield tools list --mcp-config mcp.json --json
  wield tools call getCurrentDateTime
  wield tools call setAlarm '{"time":"2025-10-21T07:30:00"}'
  wield tools search --mcp-config mcp.json "read a file"`,
	}
	cmd.AddCommand(a.toolsListCommand(), a.toolsCallCommand(), a.toolsSearchCommand())
	return groupCommand(cmd)
}

func (a *app) toolsListCommand() *cobra.Command {
	var (
		flags  toolFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the available tools with their parameters",
		Example: `  wield tools list
  wield tools list --json | jq '.[].name'`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.loadCatalog(cmd.Context(), flags, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			ap, err := a.newApprover(approvalFlags{}, c, nil, nil)
			if err != nil {
				return err
			}
			if asJSON {
				return writeToolsJSON(a.stdout, c, ap)
			}
			if len(c.tools) == 0 {
				fmt.Fprintln(a.stderr, "no tools (the built-in ones are off and no --mcp-config is given)")
				return nil
			}
			return writeTools(a.stdout, c, ap)
		},
	}
	flags.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of {name, description, source, inputSchema, annotations, asksApproval}")
	return cmd
}

type toolJSON struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	Source       string          `json:"source"`
	ReturnDirect bool            `json:"returnDirect,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the tool's MCP hints, as MCP names them; unknown ones are left out.
	Annotations toolHints `json:"annotations"`
	// AsksApproval: a chat asks before running the tool (the configuration's policy; chat's
	// --yes and --approve change it).
	AsksApproval bool `json:"asksApproval,omitempty"`
}

// toolHints are MCP's tool annotation hints.
type toolHints struct {
	ReadOnly    bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool `json:"destructiveHint,omitempty"`
	Idempotent  bool  `json:"idempotentHint,omitempty"`
	OpenWorld   *bool `json:"openWorldHint,omitempty"`
}

func writeToolsJSON(w io.Writer, c *catalog, ap *approver) error {
	out := make([]toolJSON, 0, len(c.tools))
	for _, t := range c.tools {
		d, m := t.Definition(), t.Metadata()
		out = append(out, toolJSON{
			Name: d.Name, Description: d.Description, Source: c.sources[d.Name], ReturnDirect: m.ReturnDirect,
			InputSchema: d.InputSchema, OutputSchema: d.OutputSchema,
			Annotations:  toolHints{ReadOnly: m.ReadOnly, Destructive: m.Destructive, Idempotent: m.Idempotent, OpenWorld: m.OpenWorld},
			AsksApproval: ap.asks(d.Name, m),
		})
	}
	return writeJSON(w, out)
}

// writeTools prints each tool with its source, hints, description and parameters.
func writeTools(w io.Writer, c *catalog, ap *approver) error {
	var b bytes.Buffer
	for i, t := range c.tools {
		d, m := t.Definition(), t.Metadata()
		if i > 0 {
			b.WriteByte('\n')
		}
		notes := append([]string{safeLine(c.sources[d.Name])}, hintsOf(m)...)
		if ap.asks(d.Name, m) {
			notes = append(notes, "asks before running")
		}
		fmt.Fprintf(&b, "%s  (%s)\n", safeLine(d.Name), strings.Join(notes, "; "))
		for _, line := range strings.Split(strings.TrimSpace(d.Description), "\n") {
			fmt.Fprintf(&b, "    %s\n", safeLine(line))
		}
		params := parameters(d.InputSchema)
		if len(params) == 0 {
			b.WriteString("    no parameters\n")
			continue
		}
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for _, p := range params {
			req := ""
			if p.required {
				req = ", required"
			}
			fmt.Fprintf(tw, "    %s\t%s%s\t%s\n", safeLine(p.name), safeLine(p.typ), req, safeLine(firstLine(p.description)))
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

type parameter struct {
	name, typ, description string
	required               bool
}

// parameters reads the top-level properties of an object schema, in the schema's order.
func parameters(schema json.RawMessage) []parameter {
	var s struct {
		Properties orderedProps `json:"properties"`
		Required   []string     `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]parameter, 0, len(s.Properties))
	for _, p := range s.Properties {
		p.required = slices.Contains(s.Required, p.name)
		out = append(out, p)
	}
	return out
}

// orderedProps decodes a JSON Schema properties object keeping its key order.
type orderedProps []parameter

func (o *orderedProps) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		var prop struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
		}
		if err := dec.Decode(&prop); err != nil {
			return err
		}
		typ := "any"
		switch t := prop.Type.(type) {
		case string:
			typ = t
		case []any:
			var names []string
			for _, n := range t {
				names = append(names, fmt.Sprint(n))
			}
			typ = strings.Join(names, "|")
		}
		if len(prop.Enum) > 0 {
			vals, _ := json.Marshal(prop.Enum)
			typ += " " + string(vals)
		}
		name, _ := key.(string)
		*o = append(*o, parameter{name: name, typ: typ, description: prop.Description})
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func (a *app) toolsCallCommand() *cobra.Command {
	var flags toolFlags
	cmd := &cobra.Command{
		Use:   "call NAME [ARGUMENTS]",
		Short: "Call a tool with JSON arguments and print its result",
		Long: `call runs one tool, as a model would, with ARGUMENTS as a JSON object ({} when left out; - reads
them from standard input), and prints the text the model would read. A tool error is printed on
standard error and exits with status 1.`,
		Example: `  wield tools call getCurrentDateTime
  wield tools call setAlarm '{"time":"2025-10-21T07:30:00","label":"wake up"}'
  echo '{"path":"README.md"}' | wield tools call --mcp-config mcp.json read_file -`,
		Args: rangeArgs(1, 2),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.completeTools(cmd.Context(), flags)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			input := "{}"
			if len(args) == 2 {
				input = args[1]
			}
			if input == "-" {
				b, err := a.readStdin("a tool's arguments")
				if err != nil {
					return err
				}
				input = string(b)
			}
			if !json.Valid([]byte(input)) {
				return usagef("arguments are not valid JSON: %s", safeLine(oneLine(input, 200)))
			}
			c, err := a.loadCatalog(cmd.Context(), flags, nil)
			if err != nil {
				return err
			}
			defer c.Close()
			t, err := c.lookup(args[0])
			if err != nil {
				return err
			}
			ctx := tool.WithCall(cmd.Context(), tool.Call{ID: "cli", Name: args[0]})
			out, err := t.Call(ctx, input)
			if err != nil {
				return fmt.Errorf("tool %s: %w", safeLine(args[0]), err)
			}
			if a.stdoutTTY {
				out = safeText(out)
			}
			fmt.Fprintln(a.stdout, out)
			a.pendingAlarms(c)
			return nil
		},
	}
	flags.register(cmd)
	return cmd
}

// completeTools completes tool names: the tools the command would offer, MCP servers' included
// (started for the purpose, with a short timeout since the shell waits).
func (a *app) completeTools(ctx context.Context, f toolFlags) ([]cobra.Completion, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	a.stderr, a.stderrTTY = io.Discard, false
	c, err := a.loadCatalog(ctx, f, nil)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer c.Close()
	var out []cobra.Completion
	for _, t := range c.tools {
		d := t.Definition()
		if safeLine(d.Name) != d.Name {
			continue
		}
		out = append(out, cobra.CompletionWithDesc(d.Name, safeLine(oneLine(firstLine(d.Description), 60))))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
