package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/cmd/wield/internal/builtin"
	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/tool"
)

// toolFlags select the tools a command offers.
type toolFlags struct {
	builtin   bool
	mcpConfig string
	// choose are the -T patterns (toolchoice.go); none offers every tool.
	choose []string
	// elicit lets the MCP servers ask the user during a tool call: the question stops the turn,
	// for a front end that can answer it (wield web) to resume.
	elicit bool
}

func (f *toolFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.builtin, "builtin", true, "offer the built-in tools (date and time, alarms); --builtin=false turns them off")
	cmd.Flags().StringVar(&f.mcpConfig, "mcp-config", "", "offer the tools of the MCP servers in `FILE` (the common mcpServers JSON format) instead of the configuration file's")
	cmd.MarkFlagFilename("mcp-config", "json")
	cmd.Flags().StringSliceVarP(&f.choose, "tools", "T", nil, "offer only the tools `PATTERN` chooses: a name, a glob ('read_*'), or a source (built-in, mcp:SERVER, a2a:AGENT); -PATTERN takes tools away (-T -built-in); repeatable, or comma-separated")
}

// catalog is the set of tools a command works with, and where each comes from.
type catalog struct {
	// tools are the tools offered: those of all that -T chooses.
	tools   []tool.Tool
	all     []tool.Tool
	sources map[string]string // tool name → "built-in", "mcp:SERVER" or "a2a:AGENT"
	alarms  *builtin.DateTime
	// mcp are the MCP servers' clients by name, for their resources and prompts.
	mcp     map[string]*mcp.Client
	closers []func() error
}

// sourceBuiltin names the built-in tools' source.
const sourceBuiltin = "built-in"

// serverAlarm rings a built-in alarm of a server, which runs on: on standard error, for whoever
// runs it.
func (a *app) serverAlarm(al builtin.Alarm) {
	fmt.Fprintf(a.stderr, "wield: alarm %q rings (%s)\n", al.Label, al.At.Format(time.RFC3339))
}

// loadCatalog gathers the tools that f selects. onAlarm, when set, rings the built-in alarms.
func (a *app) loadCatalog(ctx context.Context, f toolFlags, onAlarm func(builtin.Alarm)) (*catalog, error) {
	if err := checkToolPatterns(f.choose); err != nil {
		return nil, usageError{err}
	}
	c := &catalog{sources: map[string]string{}}
	if f.builtin {
		c.alarms = &builtin.DateTime{OnAlarm: onAlarm, Location: a.location()}
		tools, err := c.alarms.Tools()
		if err != nil {
			return nil, err
		}
		if err := c.add(sourceBuiltin, tools); err != nil {
			return nil, err
		}
	}
	servers, from, err := a.mcpServers(f)
	if err != nil {
		return nil, err
	}
	for i := range servers {
		if f.elicit {
			servers[i].InterruptOnElicitation = true
		}
	}
	if len(servers) > 0 {
		if err := a.startMCP(ctx, c, servers, from); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := a.addAgents(ctx, c); err != nil {
		c.Close()
		return nil, err
	}
	tools, err := c.choose(f.choose)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.tools = tools
	return c, nil
}

// location is the user's time zone: $TZ as this app's environment has it, else the local one.
func (a *app) location() *time.Location {
	tz := strings.TrimPrefix(a.getenv("TZ"), ":")
	if tz == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		fmt.Fprintf(a.stderr, "wield: TZ=%s is not a time zone (%v); using %s\n", tz, err, time.Local)
		return time.Local
	}
	return loc
}

func (c *catalog) add(source string, tools []tool.Tool) error {
	for _, t := range tools {
		name := t.Definition().Name
		if other, dup := c.sources[name]; dup {
			return fmt.Errorf("two tools are named %q: one from %s, one from %s (give one of the MCP servers a \"prefix\" in its configuration)", name, safeLine(other), safeLine(source))
		}
		c.sources[name] = source
		c.all = append(c.all, t)
		// Offered too: loadCatalog makes its choice from all once everything is added, and a
		// tool added later is offered as it comes.
		c.tools = append(c.tools, t)
	}
	return nil
}

// definitions returns the tools' definitions.
func (c *catalog) definitions() []tool.Definition {
	defs := make([]tool.Definition, len(c.tools))
	for i, t := range c.tools {
		defs[i] = t.Definition()
	}
	return defs
}

// lookup finds a tool by name.
func (c *catalog) lookup(name string) (tool.Tool, error) {
	i := slices.IndexFunc(c.tools, func(t tool.Tool) bool { return t.Definition().Name == name })
	if i < 0 {
		return nil, fmt.Errorf("%w: %q (run 'wield tools list' to see the tools)", tool.ErrNotFound, name)
	}
	return c.tools[i], nil
}

// Close stops alarms and disconnects MCP servers.
func (c *catalog) Close() error {
	if c.alarms != nil {
		c.alarms.Stop()
	}
	var errs []error
	for _, f := range slices.Backward(c.closers) {
		errs = append(errs, f())
	}
	return errors.Join(errs...)
}

// pendingAlarms tells on stderr about alarms that will not ring because wield exits.
func (a *app) pendingAlarms(c *catalog) {
	if c.alarms == nil {
		return
	}
	for _, al := range c.alarms.Pending() {
		label := ""
		if al.Label != "" {
			label = " (" + safeLine(al.Label) + ")"
		}
		fmt.Fprintf(a.stderr, "wield: the alarm for %s%s will not ring: wield rings alarms only while it runs (use an interactive 'wield chat')\n", al.At.Format(time.RFC3339), label)
	}
}
