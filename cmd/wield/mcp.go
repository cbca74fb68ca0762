package main

import (
	"context"
	"errors"
)

// loadMCP adds the tools of the MCP servers configured in file to c.
func (a *app) loadMCP(ctx context.Context, c *catalog, file string) error {
	return errors.New("--mcp-config: MCP support is not built into this wield")
}
