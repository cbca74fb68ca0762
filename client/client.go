package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Client sends prompts to a model through an advisor chain that, by default, runs the
// tool-calling loop. A Client is safe for concurrent use; its defaults are fixed at [New].
type Client struct {
	model    chat.Model
	system   string
	opts     *chat.Options
	tools    toolSet
	advisors []Advisor
	noLoop   bool
	rt       *runtime
	err      error // a configuration error, reported by every call

	chain *chain // the chain of the defaults, built once
}

// runtime is what the chain's model end and the tool loop share across a client's calls.
type runtime struct {
	model   chat.Model
	manager *toolcall.Manager
	obs     *telemetry
}

// Option configures a [Client].
type Option func(*config)

type config struct {
	system         string
	opts           *chat.Options
	tools          []any
	toolNames      []string
	toolContext    tool.Context
	advisors       []Advisor
	noLoop         bool
	manager        *toolcall.Manager
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	logger         *slog.Logger
}

// WithSystem sets the default system message.
func WithSystem(text string) Option { return func(c *config) { c.system = text } }

// WithTools adds default tools. Each argument is a [tool.Tool], a []tool.Tool, a [tool.Provider]
// (asked for its tools on every call), or a value whose methods become tools through
// [tool.Methods].
func WithTools(tools ...any) Option {
	return func(c *config) { c.tools = append(c.tools, tools...) }
}

// WithToolNames adds default tool names, resolved through the manager's resolver on every call.
func WithToolNames(names ...string) Option {
	return func(c *config) { c.toolNames = append(c.toolNames, names...) }
}

// WithToolContext sets default tool context; a call's tool context is merged over it.
func WithToolContext(tc tool.Context) Option {
	return func(c *config) { c.toolContext = tc }
}

// WithOptions sets the default options (model name, temperature, ...); a call's options are
// merged over them with [chat.Merge].
func WithOptions(opts *chat.Options) Option { return func(c *config) { c.opts = opts } }

// WithAdvisors adds default advisors.
func WithAdvisors(advisors ...Advisor) Option {
	return func(c *config) { c.advisors = append(c.advisors, advisors...) }
}

// WithoutToolLoop turns off the automatic tool-calling advisor: tool calls come back to the
// caller (with [OutcomeToolCalls]) for a user-controlled loop or for delegation. An explicitly
// added tool-calling advisor still runs.
func WithoutToolLoop() Option { return func(c *config) { c.noLoop = true } }

// WithManager sets the tool-call manager that resolves tool names and executes calls; the
// default is toolcall.New with the client's tracer, meter and logger.
func WithManager(m *toolcall.Manager) Option { return func(c *config) { c.manager = m } }

// WithTracerProvider sets where model-call and loop spans go; the default is the global one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider sets where the GenAI client metrics go; the default is the global one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithLogger sets the logger of debug-level step logs; the default is slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// New returns a client for model. A bad option (a tool value of an unsupported type, two custom
// tool-calling advisors) does not stop New; every call then fails with an error saying what is
// wrong.
func New(model chat.Model, opts ...Option) *Client {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	obs := newTelemetry(model, cfg.tracerProvider, cfg.meterProvider, cfg.logger)
	manager := cfg.manager
	if manager == nil {
		manager = toolcall.New(toolcall.Config{
			TracerProvider: cfg.tracerProvider,
			MeterProvider:  cfg.meterProvider,
			Logger:         cfg.logger,
		})
	}
	c := &Client{
		model:    model,
		system:   cfg.system,
		advisors: slices.Clone(cfg.advisors),
		noLoop:   cfg.noLoop,
		rt:       &runtime{model: model, manager: manager, obs: obs},
	}
	c.opts = chat.Merge(cfg.opts, &chat.Options{ToolNames: cfg.toolNames, ToolContext: cfg.toolContext})
	if model == nil {
		c.err = errors.New("client: nil model")
	}
	if err := c.tools.add(cfg.tools...); err != nil && c.err == nil {
		c.err = fmt.Errorf("client: default tools: %w", err)
	}
	c.chain = c.buildChain(c.advisors, c.noLoop)
	return c
}

// Manager returns the tool-call manager the client uses.
func (c *Client) Manager() *toolcall.Manager { return c.rt.manager }

// Model returns the client's model.
func (c *Client) Model() chat.Model { return c.model }

// toolSet holds tools given as values: fixed tools and providers asked on every call.
type toolSet struct {
	tools     []tool.Tool
	providers []tool.Provider
}

func (s *toolSet) add(values ...any) error {
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			return errors.New("nil tool")
		case tool.Tool:
			s.tools = append(s.tools, v)
		case []tool.Tool:
			s.tools = append(s.tools, v...)
		case tool.List:
			s.tools = append(s.tools, v...)
		case tool.Provider:
			s.providers = append(s.providers, v)
		default:
			ts, err := methodTools(v)
			if err != nil {
				return err
			}
			s.tools = append(s.tools, ts...)
		}
	}
	return nil
}

func (s *toolSet) empty() bool { return len(s.tools) == 0 && len(s.providers) == 0 }

// appendTo appends the set's tools, asking providers now.
func (s *toolSet) appendTo(ctx context.Context, dst []tool.Tool) ([]tool.Tool, error) {
	dst = append(dst, s.tools...)
	for _, p := range s.providers {
		ts, err := p.Tools(ctx)
		if err != nil {
			return nil, fmt.Errorf("tool provider: %w", err)
		}
		dst = append(dst, ts...)
	}
	return dst, nil
}

// chain is an ordered advisor chain with its continuation functions built once.
type chain struct {
	callNext     CallNext
	streamNext   StreamNext
	memoryInLoop bool
	err          error
}

// ErrTwoToolAdvisors is returned when a chain holds more than one custom tool advisor.
var ErrTwoToolAdvisors = errors.New("client: more than one tool-calling advisor in the chain")

func (c *Client) buildChain(advisors []Advisor, noLoop bool) *chain {
	ch := &chain{}
	var custom []ToolAdvisor
	for _, a := range advisors {
		if a == nil {
			ch.err = errors.New("client: nil advisor")
			return ch
		}
		if ta, ok := a.(ToolAdvisor); ok {
			custom = append(custom, ta)
		}
		_, isCall := a.(CallAdvisor)
		_, isStream := a.(StreamAdvisor)
		if !isCall && !isStream {
			ch.err = fmt.Errorf("client: advisor %T implements neither CallAdvisor nor StreamAdvisor", a)
			return ch
		}
	}
	if len(custom) > 1 {
		ch.err = fmt.Errorf("%w: %T and %T; a custom tool advisor replaces the default, and there can be only one",
			ErrTwoToolAdvisors, custom[0], custom[1])
		return ch
	}
	all := slices.Clone(advisors)
	var loop ToolAdvisor
	if len(custom) == 1 {
		loop = custom[0]
	} else if !noLoop {
		loop = defaultToolAdvisor
		all = append(all, loop)
	}
	slices.SortStableFunc(all, func(a, b Advisor) int {
		x, y := a.Order(), b.Order()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	if loop != nil {
		for _, a := range all {
			if hk, ok := a.(HistoryKeeper); ok && hk.KeepsHistory() && a.Order() > loop.Order() {
				ch.memoryInLoop = true
			}
		}
	}
	var calls []CallAdvisor
	var streams []StreamAdvisor
	for _, a := range all {
		if ca, ok := a.(CallAdvisor); ok {
			calls = append(calls, ca)
		}
		if sa, ok := a.(StreamAdvisor); ok {
			streams = append(streams, sa)
		}
	}
	// Build the continuations from the model outwards, once, so a call allocates none.
	next := c.rt.callModel
	for i := len(calls) - 1; i >= 0; i-- {
		a, n := calls[i], next
		next = func(ctx context.Context, req *Request) (*Response, error) { return a.Call(ctx, req, n) }
	}
	ch.callNext = next
	snext := c.rt.streamModel
	for i := len(streams) - 1; i >= 0; i-- {
		a, n := streams[i], snext
		snext = func(ctx context.Context, req *Request) iter.Seq2[*Event, error] { return a.Stream(ctx, req, n) }
	}
	ch.streamNext = snext
	return ch
}

// defaultToolAdvisor is the auto-registered tool-calling advisor; it takes the manager and
// telemetry from the request, so one instance serves every client.
var defaultToolAdvisor = NewToolCallingAdvisor(ToolLoopConfig{})

// modelPrompt is the prompt the model is sent: tool names resolved into tools and the tool
// context removed.
func (rt *runtime) modelPrompt(ctx context.Context, req *Request) (*chat.Prompt, error) {
	if req.Prompt.Options == nil || (len(req.Prompt.Options.ToolNames) == 0 && req.Prompt.Options.ToolContext == nil) {
		return &req.Prompt, nil // nothing to hide from the model
	}
	o := *req.Prompt.Options
	if len(o.ToolNames) > 0 {
		tools, err := rt.manager.Resolve(ctx, &o)
		if err != nil {
			return nil, fmt.Errorf("client: resolving tools: %w", err)
		}
		o.Tools, o.ToolNames = tools, nil
	}
	o.ToolContext = nil
	return &chat.Prompt{Messages: req.Prompt.Messages, Options: &o}, nil
}

func modelResponse(resp *chat.Response) *Response {
	out := &Response{Chat: resp, Usage: resp.Usage, ModelCalls: 1}
	if resp.HasToolCalls() {
		out.Outcome = OutcomeToolCalls
	}
	return out
}

// ErrNoResponse is returned when a model returns neither a response nor an error.
var ErrNoResponse = errors.New("client: model returned no response")

// callModel is the end of every call chain.
func (rt *runtime) callModel(ctx context.Context, req *Request) (*Response, error) {
	p, err := rt.modelPrompt(ctx, req)
	if err != nil {
		return nil, err
	}
	ctx, call := rt.obs.startChat(ctx, p, false, req.untraced)
	resp, err := rt.model.Call(ctx, p)
	if err == nil && resp == nil {
		err = ErrNoResponse
	}
	call.end(ctx, resp, err)
	if err != nil {
		return nil, fmt.Errorf("client: model call: %w", err)
	}
	return modelResponse(resp), nil
}

// streamModel is the end of every stream chain: the model's chunks, then the aggregated
// response as the Done event.
func (rt *runtime) streamModel(ctx context.Context, req *Request) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		p, err := rt.modelPrompt(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		ctx, call := rt.obs.startChat(ctx, p, true, req.untraced)
		var agg chat.Aggregator
		for chunk, err := range rt.model.Stream(ctx, p) {
			if err != nil {
				call.end(ctx, agg.Response(), err)
				yield(nil, fmt.Errorf("client: model stream: %w", err))
				return
			}
			if chunk == nil {
				continue
			}
			agg.Add(chunk)
			if !yield(&Event{Chunk: chunk}, nil) {
				call.end(ctx, agg.Response(), context.Canceled)
				return
			}
		}
		resp := agg.Response()
		call.end(ctx, resp, nil)
		yield(&Event{Done: modelResponse(resp)}, nil)
	}
}
