package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
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
//	  "approval": {"policy": "ask", "approve": ["write_file"]},
//	  "roles": {"reviewer": {"system": "You review Go code.", "model": "fast", "tools": ["mcp:files"], "options": {"temperature": 0.2}}}
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
	// Agents are remote A2A agents, by name, each offered as a tool of that name.
	Agents map[string]agentConfig `json:"agents,omitempty"`
	// Roles are named system prompts, each with its model, tools and options: chat --role NAME,
	// or /role NAME in a chat.
	Roles map[string]*roleConfig `json:"roles,omitempty"`
}

// agentConfig is a remote A2A agent.
type agentConfig struct {
	// URL is the agent's base URL; its card is served at /.well-known/agent-card.json.
	URL string `json:"url"`
	// TokenEnv names the environment variable holding the token the agent wants (a bearer
	// token, or an API key where its card asks for one); the file never holds it.
	TokenEnv string `json:"tokenEnv,omitempty"`
	// Description replaces the card's as the tool's description.
	Description string `json:"description,omitempty"`
}

// agentName is what a remote agent's name may be: a tool's name.
var agentName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (c agentConfig) check(name string) error {
	if !agentName.MatchString(name) {
		return fmt.Errorf("agents: %q is not a name for an agent's tool (letters, digits, _ and -, at most 64)", name)
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("agents.%s.url is %q: give the agent's http:// or https:// address", name, redactURL(c.URL))
	}
	if c.TokenEnv != "" && strings.ContainsAny(c.TokenEnv, "$={} ") {
		return fmt.Errorf("agents.%s.tokenEnv is %q: give the name of an environment variable, such as MY_AGENT_TOKEN", name, c.TokenEnv)
	}
	return nil
}

// roleConfig is a role: what a chat that takes it is told and uses. Flags given on the command
// line win over it.
type roleConfig struct {
	// Description says what the role is for, in /role's list.
	Description string `json:"description,omitempty"`
	// System is the system prompt, as --system.
	System string `json:"system,omitempty"`
	// Model is the model, as --model takes it (an alias too).
	Model string `json:"model,omitempty"`
	// Tools are tool patterns, as -T takes them.
	Tools []string `json:"tools,omitempty"`
	// Options are model options, as -o takes them: {"temperature": 0.2, "stop": "END"}.
	Options map[string]any `json:"options,omitempty"`

	// options are Options as -o KEY=VALUE settings, in key order.
	options []string
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
	// mcp are the servers of MCPServers, parsed, and oauth their "oauth" entries by name.
	mcp   []mcp.ServerConfig
	oauth map[string]*oauthConfig
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
	for name, ag := range c.Agents {
		if err := ag.check(name); err != nil {
			return err
		}
	}
	for name, r := range c.Roles {
		if err := r.check(name); err != nil {
			return err
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
		wrapped := append(append([]byte(`{"mcpServers":`), c.MCPServers...), '}')
		servers, err := mcp.ParseConfig(wrapped)
		if err != nil {
			return err
		}
		if c.oauth, err = parseOAuth(wrapped, servers); err != nil {
			return err
		}
		c.mcp = servers
	}
	return nil
}

// check refuses a role that names nothing or holds what no chat could use; the options' values
// are checked against the model's provider when the role is taken.
func (r *roleConfig) check(name string) error {
	switch {
	case name == "" || strings.ContainsAny(name, "/ \t") || safeLine(name) != name:
		return fmt.Errorf("roles: %q is not a name for a role (no slash, space or control character)", name)
	case r == nil || r.System == "" && r.Model == "" && len(r.Tools) == 0 && len(r.Options) == 0:
		return fmt.Errorf("roles.%s sets nothing: give it a system prompt, a model, tools or options", name)
	}
	if err := checkToolPatterns(r.Tools); err != nil {
		return fmt.Errorf("roles.%s.tools: %w", name, err)
	}
	r.options = nil
	for _, key := range slices.Sorted(maps.Keys(r.Options)) {
		if !slices.Contains(modelOptionKeys(), key) {
			return fmt.Errorf("roles.%s.options: no option %q; the options are %s", name, key, strings.Join(modelOptionKeys(), ", "))
		}
		var value string
		switch v := r.Options[key].(type) {
		case string:
			value = v
		case float64, bool:
			value = fmt.Sprint(v)
		default:
			return fmt.Errorf("roles.%s.options.%s: give a string, a number or true/false", name, key)
		}
		r.options = append(r.options, key+"="+value)
	}
	return nil
}

// role returns the role named, or an error listing the roles there are.
func (c *loadedConfig) role(name string) (*roleConfig, error) {
	if r, ok := c.Roles[name]; ok {
		return r, nil
	}
	if len(c.Roles) == 0 {
		return nil, usagef("no role %q: the configuration file (%s) has no \"roles\"", safeLine(name), c.path)
	}
	return nil, usagef("no role %q; the roles are %s", safeLine(name), strings.Join(c.roleNames(), ", "))
}

// roleNames are the roles' names, sorted.
func (c *loadedConfig) roleNames() []string {
	if c == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(c.Roles))
}

// withRole returns f with what role sets where f sets nothing; its options come before f's, so
// that -o wins.
func (f chatFlags) withRole(name string, r *roleConfig) chatFlags {
	f.role = name
	if f.model.model == "" {
		f.model.model = r.Model
	}
	if f.system == "" {
		f.system = r.System
	}
	if len(f.tools.choose) == 0 {
		f.tools.choose = r.Tools
	}
	f.options = append(slices.Clone(r.options), f.options...)
	return f
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
