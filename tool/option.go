package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Option configures a tool built by any constructor: [Func], [Methods] and [New] all take it.
// Options that apply to one constructor only have their own types ([FuncOption],
// [MethodsOption]), so passing one to another constructor does not compile.
type Option interface {
	FuncOption
	MethodsOption
	NewOption
}

// FuncOption configures a tool built by [Func].
type FuncOption interface{ applyFunc(*funcConfig) }

// MethodsOption configures the tools built by [Methods].
type MethodsOption interface{ applyMethods(*methodsConfig) }

// NewOption configures a tool built by [New].
type NewOption interface{ applyNew(*config) }

// config is what every constructor reads.
type config struct {
	returnDirect bool
	sequential   bool
	approval     bool
	hints        Metadata // only its hint fields
	timeout      time.Duration
	converter    ResultConverter
	errs         []error
}

type funcConfig struct {
	config
	inputSchema json.RawMessage
}

type methodsConfig struct {
	config
	only []string
}

// common is an [Option]: it sets what every constructor reads.
type common func(*config)

func (o common) applyFunc(c *funcConfig)       { o(&c.config) }
func (o common) applyMethods(c *methodsConfig) { o(&c.config) }
func (o common) applyNew(c *config)            { o(c) }

type funcOnly func(*funcConfig)

func (o funcOnly) applyFunc(c *funcConfig) { o(c) }

type methodsOnly func(*methodsConfig)

func (o methodsOnly) applyMethods(c *methodsConfig) { o(c) }

// ReturnDirect makes the tool's result the final answer of the turn instead of going back to
// the model (see [Metadata.ReturnDirect]).
func ReturnDirect() Option { return common(func(c *config) { c.returnDirect = true }) }

// Sequential makes the tool run alone, never beside other calls of the same model response
// (see [Metadata.Sequential]); use it for tools that must not race with others.
func Sequential() Option { return common(func(c *config) { c.sequential = true }) }

// RequiresApproval makes every call of the tool wait for the application's decision before it
// runs (see [Metadata.RequiresApproval]).
func RequiresApproval() Option { return common(func(c *config) { c.approval = true }) }

// ReadOnly declares that the tool does not change its environment (MCP readOnlyHint).
func ReadOnly() Option { return common(func(c *config) { c.hints.ReadOnly = true }) }

// Destructive declares whether the tool may destroy or overwrite data (MCP destructiveHint).
func Destructive(yes bool) Option { return common(func(c *config) { c.hints.Destructive = &yes }) }

// Idempotent declares that repeating a call with the same arguments has no further effect (MCP
// idempotentHint).
func Idempotent() Option { return common(func(c *config) { c.hints.Idempotent = true }) }

// OpenWorld declares whether the tool reaches an open world of outside entities (MCP
// openWorldHint).
func OpenWorld(yes bool) Option { return common(func(c *config) { c.hints.OpenWorld = &yes }) }

// WithTimeout bounds one call of the tool (see [Metadata.Timeout]): [Invoke] gives the call's
// context this deadline and gives up on a call that outlives it. It must be positive.
func WithTimeout(d time.Duration) Option {
	return common(func(c *config) {
		if d <= 0 {
			c.errs = append(c.errs, fmt.Errorf("timeout %v is not positive", d))
			return
		}
		c.timeout = d
	})
}

// WithConverter sets how the tool's result becomes the text sent to the model; the default is
// [DefaultConverter].
func WithConverter(rc ResultConverter) Option {
	return common(func(c *config) {
		if rc == nil {
			c.errs = append(c.errs, errors.New("nil result converter"))
			return
		}
		c.converter = rc
	})
}

// WithInputSchema gives a [Func] an explicit JSON Schema for its input instead of the one
// inferred from In. Arguments are validated against it, then decoded into In, so In may be any
// type that can hold them (a struct, a map, json.RawMessage, any).
func WithInputSchema(schema json.RawMessage) FuncOption {
	return funcOnly(func(c *funcConfig) {
		if len(schema) == 0 {
			c.errs = append(c.errs, errors.New("empty input schema"))
			return
		}
		c.inputSchema = schema
	})
}

// Only chooses the methods [Methods] turns into tools, by their Go names, for types that do not
// register their tool methods (or to offer fewer than they register):
//
//	tools, err := tool.Methods(&Notes{}, tool.Only("Add", "Search"))
func Only(methods ...string) MethodsOption {
	return methodsOnly(func(c *methodsConfig) {
		if len(methods) == 0 {
			c.errs = append(c.errs, errors.New("Only lists no methods"))
			return
		}
		c.only = append(c.only, methods...)
	})
}

func (c *config) err() error {
	if len(c.errs) > 0 {
		return errors.Join(c.errs...)
	}
	return nil
}

func (c *config) metadata() Metadata {
	m := c.hints
	m.ReturnDirect, m.Timeout, m.Sequential, m.RequiresApproval = c.returnDirect, c.timeout, c.sequential, c.approval
	return m
}

// checkName applies the MCP naming rules for tools, so that every tool can be served over MCP:
// 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.'. Providers' rules are narrower (64 bytes at most;
// no dots for OpenAI, Anthropic and Ollama; a letter or '_' first for Gemini), so a valid name
// may still be one a provider refuses: the providers send such a name under a wire name that
// their API accepts and map the model's calls back (provider/internal/toolname).
func checkName(name string) error {
	ok := len(name) >= 1 && len(name) <= 128
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
	}
	if !ok {
		return fmt.Errorf("tool: invalid tool name %q: use 1 to 128 letters, digits, '_', '-' or '.'", name)
	}
	return nil
}
