package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/mcp"
)

// mcpAttachPrefix starts an attachment that is an MCP server's resource: mcp:SERVER/URI.
const mcpAttachPrefix = "mcp:"

// server returns the MCP server named, or an error listing those there are.
func (c *catalog) server(name string) (*mcp.Client, error) {
	if cl, ok := c.mcp[name]; ok {
		return cl, nil
	}
	if len(c.mcp) == 0 {
		return nil, fmt.Errorf("no MCP server %q: none is running (--mcp-config or the configuration file's mcpServers name them)", safeLine(name))
	}
	return nil, fmt.Errorf("no MCP server %q; the servers are %s", safeLine(name), strings.Join(slices.Sorted(maps.Keys(c.mcp)), ", "))
}

// readResource reads the attachment ref, mcp:SERVER/URI, as content parts.
func (c *catalog) readResource(ctx context.Context, ref string) ([]content.Part, error) {
	server, uri, ok := strings.Cut(strings.TrimPrefix(ref, mcpAttachPrefix), "/")
	if !ok || server == "" || uri == "" {
		return nil, fmt.Errorf("%s: attach a server's resource as mcp:SERVER/URI, such as mcp:docs/file:///README.md", safeLine(ref))
	}
	cl, err := c.server(server)
	if err != nil {
		return nil, err
	}
	parts, err := cl.ReadResource(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", safeLine(ref), err)
	}
	return parts, nil
}

// readResources reads the attachments refs, each mcp:SERVER/URI, as content parts.
func (c *catalog) readResources(ctx context.Context, refs []string) ([]content.Part, error) {
	var out []content.Part
	for _, ref := range refs {
		parts, err := c.readResource(ctx, ref)
		if err != nil {
			return nil, err
		}
		out = append(out, parts...)
	}
	return out, nil
}

// splitAttachments separates files from MCP resources, which are read once the servers run.
func splitAttachments(refs []string) (files, resources []string) {
	for _, r := range refs {
		if strings.HasPrefix(r, mcpAttachPrefix) {
			resources = append(resources, r)
		} else {
			files = append(files, r)
		}
	}
	return files, resources
}

// getPrompt gets an MCP server's prompt for /prompt [SERVER/]NAME [KEY=VALUE...]: without
// SERVER, the one server that runs.
func (c *catalog) getPrompt(ctx context.Context, args string) ([]chat.Message, error) {
	words := strings.Fields(args)
	if len(words) == 0 {
		return nil, fmt.Errorf("/prompt [SERVER/]NAME [KEY=VALUE...] starts a question from an MCP server's prompt")
	}
	server, name, ok := strings.Cut(words[0], "/")
	if !ok {
		name = server
		if len(c.mcp) != 1 {
			return nil, fmt.Errorf("/prompt %s: say which server's, as SERVER/%s (the servers are %s)", safeLine(name), safeLine(name), strings.Join(slices.Sorted(maps.Keys(c.mcp)), ", "))
		}
		for s := range c.mcp {
			server = s
		}
	}
	cl, err := c.server(server)
	if err != nil {
		return nil, err
	}
	values := map[string]string{}
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("/prompt: %q is not KEY=VALUE", safeLine(w))
		}
		values[k] = v
	}
	msgs, err := cl.GetPrompt(ctx, name, values)
	if err != nil {
		return nil, fmt.Errorf("prompt %s/%s: %w", safeLine(server), safeLine(name), err)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("prompt %s/%s has no messages", safeLine(server), safeLine(name))
	}
	return msgs, nil
}
