package main

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wield-ai/wield/tool"
)

// A tool pattern of -T / --tools (and a role's "tools") chooses tools: it matches a tool when it
// matches, as a glob (path.Match), the tool's name or its source ("built-in", "mcp:SERVER",
// "a2a:AGENT"). A pattern that starts with "-" takes the tools it matches away. With only such
// patterns the chat starts from every tool; with any other, from none.
//
//	-T getCurrentDateTime -T 'read_*'   two tools by name and glob
//	-T mcp:files                         every tool of the MCP server files
//	-T 'mcp:*' -T -write_file            every MCP tool but write_file
//	-T -built-in                         every tool but the built-in ones

// checkToolPatterns refuses a pattern path.Match cannot read, before any tool is started.
func checkToolPatterns(patterns []string) error {
	for _, p := range patterns {
		glob := strings.TrimPrefix(p, "-")
		if glob == "" {
			return fmt.Errorf("tool pattern %q names nothing: give a tool's name, a glob such as 'read_*', or a source such as mcp:SERVER, built-in", p)
		}
		if _, err := path.Match(glob, ""); err != nil {
			return fmt.Errorf("tool pattern %q: %w", p, err)
		}
	}
	return nil
}

// choose returns the catalog's tools that patterns choose, in the catalog's order; no patterns
// is every tool. A pattern that matches no tool is an error naming it, so that a typo does not
// silently leave a chat without the tool meant.
func (c *catalog) choose(patterns []string) ([]tool.Tool, error) {
	if len(patterns) == 0 {
		return c.all, nil
	}
	if err := checkToolPatterns(patterns); err != nil {
		return nil, usageError{err}
	}
	matches := func(glob string, t tool.Tool) bool {
		name := t.Definition().Name
		okName, _ := path.Match(glob, name)
		okSource, _ := path.Match(glob, c.sources[name])
		return okName || okSource
	}
	includes := slices.ContainsFunc(patterns, func(p string) bool { return !strings.HasPrefix(p, "-") })
	chosen := make([]bool, len(c.all))
	if !includes {
		for i := range chosen {
			chosen[i] = true
		}
	}
	for _, p := range patterns {
		glob, off := strings.CutPrefix(p, "-")
		hit := false
		for i, t := range c.all {
			if matches(glob, t) {
				chosen[i], hit = !off, true
			}
		}
		if !hit {
			return nil, usagef("tool pattern %q matches no tool (run 'wield tools list' to see the tools and their sources)", safeLine(p))
		}
	}
	var out []tool.Tool
	for i, t := range c.all {
		if chosen[i] {
			out = append(out, t)
		}
	}
	return out, nil
}
