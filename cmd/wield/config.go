package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wield-ai/wield/mcp"
)

// configFileHint says where the configuration file is, for help texts.
const configFileHint = "$XDG_CONFIG_HOME/wield/config.json (~/.config/wield/config.json by default; $WIELD_CONFIG names another)"

// fileConfig is the configuration file. Every field is optional; flags and environment
// variables win over it.
//
//	{
//	  "model": "anthropic/claude-sonnet-4-5",
//	  "aliases": {"fast": "openai/gpt-4.1-mini", "local": "ollama/qwen3"},
//	  "providers": {
//	    "openai": {"baseURL": "http://127.0.0.1:8000/v1", "apiKeyEnv": "VLLM_API_KEY"},
//	    "ollama": {"baseURL": "http://gpu-box:11434"}
//	  },
//	  "mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}},
//	  "approval": {"policy": "ask", "approve": ["write_file"]}
//	}
type fileConfig struct {
	// Model is the default model, as --model takes it.
	Model string `json:"model,omitempty"`
	// Aliases name models: -m NAME means the model an alias gives, in any form --model takes
	// but another alias.
	Aliases map[string]string `json:"aliases,omitempty"`
	// Providers holds per-provider settings, by provider name.
	Providers map[string]providerConfig `json:"providers,omitempty"`
	// MCPServers are MCP servers whose tools every command offers, in the mcpServers format.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
	// Approval is the policy for tools that need approval before they run.
	Approval *approvalConfig `json:"approval,omitempty"`
}

// providerConfig is one provider's settings.
type providerConfig struct {
	// BaseURL replaces the provider's address (an OpenAI-compatible server for openai).
	BaseURL string `json:"baseURL,omitempty"`
	// APIKeyEnv names the environment variable holding the key; the file never holds keys.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
}

// approvalConfig is the approval policy: which tool calls run without asking. Tools that need
// approval are those whose metadata or MCP annotations say so (destructive ones).
type approvalConfig struct {
	// Policy is "ask" (ask on a terminal, refuse elsewhere; the default) or "yes" (approve
	// every call, as --yes).
	Policy string `json:"policy,omitempty"`
	// Approve names tools that run without asking, as --approve NAME.
	Approve []string `json:"approve,omitempty"`
}

// The approval policies.
const (
	approvalAsk = "ask"
	approvalYes = "yes"
)

// loadedConfig is the configuration file as read, with where it was looked for.
type loadedConfig struct {
	fileConfig
	// path is where the file is (or would be); found says whether it exists.
	path  string
	found bool
	// mcp are the servers of MCPServers, parsed.
	mcp []mcp.ServerConfig
}

// configPath is where the configuration file is: $WIELD_CONFIG, else config.json in the XDG
// configuration directory.
func (a *app) configPath() (string, error) {
	if p := a.getenv("WIELD_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := a.xdgDir("XDG_CONFIG_HOME", ".config", "configuration directory")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "config.json"), nil
}

// xdgDir is wield's directory in an XDG base directory: in $env when it holds an absolute path,
// else in the default below the home directory (fallback). what names the directory in the
// error when there is no home either.
func (a *app) xdgDir(env, fallback, what string) (string, error) {
	if d := a.getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "wield"), nil
	}
	home, err := a.home()
	if err != nil {
		return "", fmt.Errorf("no %s: set %s or HOME: %w", what, env, err)
	}
	return filepath.Join(home, fallback, "wield"), nil
}

// home is the user's home directory, as this app's environment has it.
func (a *app) home() (string, error) {
	if h := a.getenv("HOME"); h != "" {
		return h, nil
	}
	return os.UserHomeDir()
}

// loadConfig reads the configuration file once; a missing file is an empty configuration, a
// broken one an error that names it.
func (a *app) loadConfig() (*loadedConfig, error) {
	if a.cfg != nil {
		return a.cfg, nil
	}
	path, err := a.configPath()
	if err != nil {
		return nil, err
	}
	c := &loadedConfig{path: path}
	data, err := readJSONFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && a.getenv("WIELD_CONFIG") == "":
	case err != nil:
		return nil, fmt.Errorf("configuration: %w", err)
	default:
		c.found = true
		if err := c.parse(data); err != nil {
			return nil, fmt.Errorf("configuration %s: %w", path, err)
		}
	}
	a.cfg = c
	return c, nil
}

func (c *loadedConfig) parse(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.fileConfig); err != nil {
		return err
	}
	for name, p := range c.Providers {
		if providerNamed(name) == nil {
			return fmt.Errorf("providers: unknown provider %q (known: %s)", name, strings.Join(providerNames(), ", "))
		}
		if p.APIKeyEnv != "" && strings.ContainsAny(p.APIKeyEnv, "$={} ") {
			return fmt.Errorf("providers.%s.apiKeyEnv is %q: give the name of an environment variable, such as MY_API_KEY", name, p.APIKeyEnv)
		}
	}
	for name, target := range c.Aliases {
		switch {
		case name == "" || strings.ContainsAny(name, "/ \t"):
			return fmt.Errorf("aliases: %q is not a name for a model (no slash or space)", name)
		case providerNamed(name) != nil:
			return fmt.Errorf("aliases: %q is a provider's name", name)
		case target == "":
			return fmt.Errorf("aliases.%s names no model", name)
		}
		if _, ok := c.Aliases[target]; ok {
			return fmt.Errorf("aliases.%s is %q, another alias: give the model itself", name, target)
		}
	}
	if c.Approval != nil {
		switch c.Approval.Policy {
		case "", approvalAsk, approvalYes:
		default:
			return fmt.Errorf("approval.policy is %q, want %q or %q", c.Approval.Policy, approvalAsk, approvalYes)
		}
	}
	if len(c.MCPServers) > 0 && !bytes.Equal(bytes.TrimSpace(c.MCPServers), []byte("null")) {
		servers, err := mcp.ParseConfig(append(append([]byte(`{"mcpServers":`), c.MCPServers...), '}'))
		if err != nil {
			return err
		}
		c.mcp = servers
	}
	return nil
}

// provider returns the file's settings for the provider named.
func (c *loadedConfig) provider(name string) providerConfig {
	if c == nil {
		return providerConfig{}
	}
	return c.Providers[name]
}

// alias returns the model the alias name stands for.
func (c *loadedConfig) alias(name string) (string, bool) {
	if c == nil {
		return "", false
	}
	target, ok := c.Aliases[name]
	return target, ok
}

// approval returns the approval policy and the tools approved in advance.
func (c *loadedConfig) approval() (policy string, approve []string) {
	if c == nil || c.Approval == nil {
		return approvalAsk, nil
	}
	policy = c.Approval.Policy
	if policy == "" {
		policy = approvalAsk
	}
	return policy, slices.Clone(c.Approval.Approve)
}

func providerNames() []string {
	names := make([]string, len(providers))
	for i, p := range providers {
		names[i] = p.name
	}
	return names
}
