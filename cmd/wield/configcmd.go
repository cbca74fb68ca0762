package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/internal/version"
)

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print wield's version and the commit it was built from",
		Long: `version prints the module version wield was built from (v1.2.3, a pseudo-version naming a
commit, or devel for a build from a working tree), the commit and its time when the build
recorded them, and the Go toolchain.`,
		Example: "  wield version",
		Args:    exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(a.stdout, "wield "+version.Get().String())
			return nil
		},
	}
}

// setting is one line of wield config: a name, its value, and where the value came from.
type setting struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

func (a *app) configCommand() *cobra.Command {
	var (
		flags  modelFlags
		tools  toolFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings and where each comes from",
		Long: `config shows the settings chat would use, given the same flags: the model, the server and the
key (never the key itself: the variable it comes from), the MCP servers, where sessions and
history are kept, and the approval policy. Each setting says where it comes from: a flag, an
environment variable, the configuration file, or the default.

The configuration file is ` + configFileHint + `. Every key is optional:

  {
    "model": "anthropic/claude-sonnet-4-5",
    "aliases": {"fast": "gpt-4.1-mini", "local": "ollama/qwen3"},
    "providers": {
      "openai": {"baseURL": "http://127.0.0.1:8000/v1", "apiKeyEnv": "VLLM_API_KEY"},
      "anthropic": {"apiKeyEnv": "WORK_ANTHROPIC_KEY"},
      "ollama": {"baseURL": "http://gpu-box:11434"}
    },
    "mcpServers": {
      "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}
    },
    "approval": {"policy": "ask", "approve": ["write_file"]},
    "roles": {
      "reviewer": {"description": "reviews Go code", "system": "You review Go code.", "model": "fast",
                   "tools": ["mcp:files", "-write_file"], "options": {"temperature": 0.2}}
    }
  }

model is the default model (--model and $WIELD_MODEL win over it). aliases name models, so that
--model fast means gpt-4.1-mini; a model name of OpenAI, Anthropic or Gemini (gpt-4.1, o3,
claude-sonnet-4-5, gemini-2.5-pro) finds its provider without one. providers set a provider's
address and the environment variable holding its key; the file never holds keys themselves.
mcpServers are the MCP servers whose tools chat, tools and mcp serve offer when no --mcp-config
is given, in the mcpServers format of Claude Desktop and Cursor. approval is the policy for tools
that need approval before they run (those that may modify or destroy data): "ask" asks on a
terminal and refuses without one, "yes" runs every call (as chat --yes); approve lists tools that
never ask (as chat --approve). agents are remote A2A agents, each a tool of its name:
{"records": {"url": "http://127.0.0.1:9000", "tokenEnv": "RECORDS_TOKEN"}}, the token read from the
variable tokenEnv names. roles are named system prompts, each with its model, tools (as -T
takes them) and options (as -o): chat --role reviewer, or /role reviewer in a chat; flags given
win over a role.`,
		Example: `  wield config
  wield config --model ollama/qwen3
  wield config --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			settings, err := a.effectiveSettings(cmd, flags, tools)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, settings)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, s := range settings {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, safeLine(s.Value), safeLine(s.Source))
			}
			return tw.Flush()
		},
	}
	a.registerModelFlags(cmd, &flags)
	cmd.Flags().StringVar(&tools.mcpConfig, "mcp-config", "", "show the MCP servers of `FILE` instead of the configuration file's")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of {name, value, source}")
	return cmd
}

// effectiveSettings resolves what chat would use. Nothing is contacted, except a local Ollama
// when it is the model chat would pick.
func (a *app) effectiveSettings(cmd *cobra.Command, f modelFlags, tools toolFlags) ([]setting, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	var out []setting
	add := func(name, value, source string) { out = append(out, setting{name, value, source}) }

	file := cfg.path
	if cfg.found {
		add("config file", file, sourceOf(a.getenv("WIELD_CONFIG") != "", "$WIELD_CONFIG", "default"))
	} else {
		add("config file", file+" (none)", "default")
	}

	spec, err := a.resolveModel(cmd.Context(), f)
	var ce configError
	switch {
	case errors.As(err, &ce):
		msg := strings.TrimPrefix(ce.msg, "wield: ")
		if ce.msg == noModelMessage {
			msg = "no model configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, or OLLAMA_HOST, start Ollama locally, or pass --model PROVIDER/NAME (or --base-url URL --model NAME)"
		}
		add("model", "none: "+strings.Join(strings.Fields(msg), " "), "")
	case err != nil:
		return nil, err
	default:
		add("model", spec.String(), strings.TrimPrefix(spec.why, "as "))
		add("base URL", spec.url(), sourceOf(spec.baseFrom != "", spec.baseFrom, "default"))
		switch {
		case spec.provider == "ollama":
			add("API key", "none (Ollama takes none)", "")
		case spec.apiKey == "":
			add("API key", "none", "no key is sent to "+spec.url())
		default:
			add("API key", spec.keyFrom+" (set)", spec.keyWhy)
		}
	}

	servers, from, err := a.mcpServers(tools)
	if err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		add("MCP servers", "none", "")
	} else {
		names := make([]string, len(servers))
		for i, s := range servers {
			names[i] = s.Name
		}
		add("MCP servers", strings.Join(names, ", "), from)
	}

	if p, err := a.sessionsPath(); err == nil {
		add("sessions", p, sourceOf(a.getenv("XDG_DATA_HOME") != "", "$XDG_DATA_HOME", "default"))
	}
	if d, err := a.stateDir(); err == nil {
		add("history", d+"/history", sourceOf(a.getenv("XDG_STATE_HOME") != "", "$XDG_STATE_HOME", "default"))
	}
	policy, approve := cfg.approval()
	src := "default"
	if cfg.Approval != nil {
		src = "the configuration file"
	}
	value := policy
	if len(approve) > 0 {
		value += "; approved: " + strings.Join(approve, ", ")
	}
	add("approval", value, src)
	add("color", sourceOf(a.color(), "on", "off"), colorSource(a))
	return out, nil
}

func sourceOf(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func colorSource(a *app) string {
	switch {
	case !a.stderrTTY:
		return "standard error is not a terminal"
	case a.getenv("NO_COLOR") != "":
		return "$NO_COLOR"
	case a.getenv("TERM") == "dumb":
		return "TERM=dumb"
	}
	return "terminal"
}
