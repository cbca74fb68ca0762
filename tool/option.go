package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Option configures a tool built by [Func], [Methods], [MethodsStrict] or [New].
type Option func(*config)

type config struct {
	returnDirect bool
	sequential   bool
	approval     bool
	hints        Metadata // only its hint fields
	timeout      time.Duration
	converter    ResultConverter
	inputSchema  json.RawMessage
	onSkip       func(SkippedMethod)
	errs         []error
}

// ReturnDirect makes the tool's result the final answer of the turn instead of going back to
// the model (see [Metadata.ReturnDirect]).
func ReturnDirect() Option { return func(c *config) { c.returnDirect = true } }

// Sequential makes the tool run alone, never beside other calls of the same model response
// (see [Metadata.Sequential]); use it for tools that must not race with others.
func Sequential() Option { return func(c *config) { c.sequential = true } }

// RequiresApproval makes every call of the tool wait for the application's decision before it
// runs (see [Metadata.RequiresApproval]).
func RequiresApproval() Option { return func(c *config) { c.approval = true } }

// ReadOnly declares that the tool does not change its environment (MCP readOnlyHint).
func ReadOnly() Option { return func(c *config) { c.hints.ReadOnly = true } }

// Destructive declares whether the tool may destroy or overwrite data (MCP destructiveHint).
func Destructive(yes bool) Option { return func(c *config) { c.hints.Destructive = &yes } }

// Idempotent declares that repeating a call with the same arguments has no further effect (MCP
// idempotentHint).
func Idempotent() Option { return func(c *config) { c.hints.Idempotent = true } }

// OpenWorld declares whether the tool reaches an open world of outside entities (MCP
// openWorldHint).
func OpenWorld(yes bool) Option { return func(c *config) { c.hints.OpenWorld = &yes } }

// WithTimeout bounds one call of the tool: the tool's context gets this deadline, and the
// runtime gives up on a call that outlives it. It must be positive.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.errs = append(c.errs, fmt.Errorf("timeout %v is not positive", d))
			return
		}
		c.timeout = d
	}
}

// WithConverter sets how the tool's result becomes the text sent to the model; the default is
// [DefaultConverter].
func WithConverter(rc ResultConverter) Option {
	return func(c *config) {
		if rc == nil {
			c.errs = append(c.errs, errors.New("nil result converter"))
			return
		}
		c.converter = rc
	}
}

// WithInputSchema gives a [Func] an explicit JSON Schema for its input instead of the one
// inferred from In. Arguments are validated against it, then decoded into In, so In may be any
// type that can hold them (a struct, a map, json.RawMessage, any).
func WithInputSchema(schema json.RawMessage) Option {
	return func(c *config) {
		if len(schema) == 0 {
			c.errs = append(c.errs, errors.New("empty input schema"))
			return
		}
		c.inputSchema = schema
	}
}

// SkippedMethod is an exported method that [Methods] did not turn into a tool, and why.
type SkippedMethod struct {
	Method string
	Reason string
}

// String is "Method: reason".
func (s SkippedMethod) String() string { return s.Method + ": " + s.Reason }

// OnSkip has [Methods] report each exported method it does not turn into a tool to fn, so a
// method with a wrong signature is never silently lost. Other constructors ignore it.
func OnSkip(fn func(SkippedMethod)) Option { return func(c *config) { c.onSkip = fn } }

func buildConfig(opts []Option) (*config, error) {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return c, nil
}

func (c *config) metadata() Metadata {
	m := c.hints
	m.ReturnDirect, m.Timeout, m.Sequential, m.RequiresApproval = c.returnDirect, c.timeout, c.sequential, c.approval
	return m
}

// validName follows MCP's guidance for tool names, which every provider's rules include once
// dots are rewritten.
var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func checkName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("tool: invalid tool name %q: use 1 to 128 letters, digits, '_', '-' or '.'", name)
	}
	return nil
}
