package main

import (
	"context"
	"maps"
	"slices"

	"github.com/wield-ai/wield/a2a"
	"github.com/wield-ai/wield/tool"
)

// addAgents adds the configuration file's remote A2A agents to c, each a tool named as its
// entry, from the source a2a:NAME. An agent whose card cannot be read is reported and the
// others go on, as a failing MCP server is; a token variable that is not set is an error.
func (a *app) addAgents(ctx context.Context, c *catalog) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		ag := cfg.Agents[name]
		rc := a2a.Config{CardURL: ag.URL, Name: name, Description: ag.Description}
		if ag.TokenEnv != "" {
			token := a.getenv(ag.TokenEnv)
			if token == "" {
				return configError{"wield: the configuration file's agent " + name + " takes its token from $" + ag.TokenEnv + ", which is not set"}
			}
			// The card says whether the agent wants a bearer token or an API key.
			rc.Auth = &a2a.Auth{BearerToken: token, APIKey: token}
		}
		t, err := a2a.RemoteAgent(ctx, rc)
		if err != nil {
			a.warnf("A2A agent %s (%s) cannot be reached; going on without it: %s", safeLine(name), redactURL(ag.URL), safeLine(oneLine(err.Error(), 300)))
			continue
		}
		if err := c.add("a2a:"+name, []tool.Tool{t}); err != nil {
			return err
		}
	}
	return nil
}
