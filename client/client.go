package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/engine"
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
	names    []string
	toolCtx  tool.Context
	advisors []Advisor
	noLoop   bool
	approval toolcall.ApprovalPolicy
	store    TurnStore
	rt       *runtime

	chain *chain // the chain of the defaults, built once
}

// runtime is what the chain's model end and the tool loop share across a client's calls.
type runtime struct {
	model   chat.Model
	manager *toolcall.Manager
	obs     *telemetry
	turnKey []byte        // [WithTurnKey]
	lease   time.Duration // [WithRoundLease]
	tree    TreeBudget    // [WithTreeBudget]
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
	approval       toolcall.ApprovalPolicy
	store          TurnStore
	turnKey        []byte
	lease          time.Duration
	tree           TreeBudget
	manager        *toolcall.Manager
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	logger         *slog.Logger
}

// WithSystem sets the default system message.
func WithSystem(text string) Option { return func(c *config) { c.system = text } }

// WithTools adds default tools. Each argument is a [tool.Tool], a []tool.Tool, a [tool.Provider]
// (asked for its tools on every call), or a value of a type that registers method tools
// ([tool.RegisterMethods], written by wield gen), whose methods become tools through
// [tool.Methods]; for methods chosen with [tool.Only], pass what tool.Methods returns.
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

// WithoutToolLoop turns off the automatic tool loop: tool calls come back to the caller (with
// [OutcomeToolCalls]) for a user-controlled loop or for delegation. A [ToolLoop] added as an
// advisor still runs.
func WithoutToolLoop() Option { return func(c *config) { c.noLoop = true } }

// WithApproval sets the policy that decides which tool calls wait for the application's
// approval; the default asks for the tools whose metadata sets RequiresApproval
// ([toolcall.AskFlagged]). A turn whose model asks for such calls stops with [OutcomeApproval]
// before any call of that response runs.
func WithApproval(policy toolcall.ApprovalPolicy) Option {
	return func(c *config) { c.approval = policy }
}

// WithTurnStore makes the client's turns durable: the tool loop saves each turn's state in store
// under the request's conversation ([ParamConversationID], then required) when it stops, before
// a round's calls start and after each round, so that a stopped, failed or crashed turn can be
// resumed from the store in any process ([TurnStore.LoadTurn], [Client.Resume]) and no recorded
// call runs twice.
func WithTurnStore(store TurnStore) Option { return func(c *config) { c.store = store } }

// WithRoundLease sets how long a round's lease lasts ([DefaultRoundLease] by default): with a
// turn store, the process running a round's calls holds the round for this long and renews it
// every third of it while they run, so that no other process decides on them ([ErrRoundRunning])
// until the lease has run out without renewal, as when the process died. Shorter leases take a
// crashed round up sooner; the clocks of the processes sharing a store must agree to well within
// it. Below [MinRoundLease], New refuses it.
func WithRoundLease(d time.Duration) Option { return func(c *config) { c.lease = d } }

// MinTurnKeyLen is the shortest key [WithTurnKey] accepts.
const MinTurnKeyLen = 32

// WithTurnKey makes the client sign every turn state it hands out or stores (an HMAC-SHA256 in
// [TurnState].MAC, keyed by key, which must be at least [MinTurnKeyLen] bytes) and refuse to
// resume a state whose MAC does not verify ([ErrTurnTampered]): a state that went through hands
// the application does not control (a browser, a queue, a database row) comes back as the client
// wrote it, or not at all. Clients that resume each other's states share the key.
func WithTurnKey(key []byte) Option {
	return func(c *config) { c.turnKey = append([]byte(nil), key...) }
}

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

// New returns a client for model. A bad option (a nil model or advisor, a tool value of an
// unsupported type, two tool loops) is an error here, never later.
func New(model chat.Model, opts ...Option) (*Client, error) {
	if model == nil {
		return nil, errors.New("client: nil model")
	}
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.turnKey != nil && len(cfg.turnKey) < MinTurnKeyLen {
		return nil, fmt.Errorf("client: a turn key of %d bytes; it needs at least %d", len(cfg.turnKey), MinTurnKeyLen)
	}
	switch {
	case cfg.lease == 0:
		cfg.lease = DefaultRoundLease
	case cfg.lease < MinRoundLease:
		return nil, fmt.Errorf("client: a round lease of %v; it needs at least %v", cfg.lease, MinRoundLease)
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
		opts:     cfg.opts.Clone(),
		names:    slices.Clone(cfg.toolNames),
		toolCtx:  maps.Clone(cfg.toolContext),
		advisors: slices.Clone(cfg.advisors),
		noLoop:   cfg.noLoop,
		approval: cfg.approval,
		store:    cfg.store,
		rt:       &runtime{model: model, manager: manager, obs: obs, turnKey: cfg.turnKey, lease: cfg.lease, tree: cfg.tree},
	}
	if err := c.tools.add(cfg.tools...); err != nil {
		return nil, fmt.Errorf("client: default tools: %w", err)
	}
	var err error
	if c.chain, err = c.buildChain(c.advisors, c.noLoop); err != nil {
		return nil, err
	}
	return c, nil
}

// Manager returns the tool-call manager the client uses.
func (c *Client) Manager() *toolcall.Manager { return c.rt.manager }

// Model returns the client's model.
func (c *Client) Model() chat.Model { return c.model }

// toolSet holds tools given as values: fixed tools and providers asked on every call.
type toolSet struct {
	tools     []tool.Tool
	providers []tool.Provider
	one       [1]tool.Tool // holds a lone tool, the common case, without an allocation
}

func (s *toolSet) add(values ...any) error {
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			return errors.New("nil tool")
		case tool.Tool:
			if s.tools == nil {
				s.one[0] = v
				s.tools = s.one[:1:1]
				continue
			}
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

// appendTo appends the set's tools, asking providers now. With own set, a set used by one
// request only (a Spec's), its tools alone come back as they are, clipped so that appends go
// elsewhere; a client's are always copied, since the request's hooks may change them.
func (s *toolSet) appendTo(ctx context.Context, dst []tool.Tool, own bool) ([]tool.Tool, error) {
	if own && len(dst) == 0 && len(s.providers) == 0 {
		return slices.Clip(s.tools), nil
	}
	dst = append(dst, s.tools...)
	for _, p := range s.providers {
		ts, err := listTools(ctx, p.Tools)
		if err != nil {
			return nil, fmt.Errorf("tool provider: %w", err)
		}
		dst = append(dst, ts...)
	}
	return dst, nil
}

// chain is an ordered advisor chain with its continuation built once.
type chain struct {
	next         Next
	memoryInLoop bool
}

// ErrTwoToolLoops is returned when a chain holds more than one tool loop added by the caller.
var ErrTwoToolLoops = errors.New("client: more than one tool loop in the chain")

func (c *Client) buildChain(advisors []Advisor, noLoop bool) (*chain, error) {
	ch := &chain{}
	var custom []toolLooper
	for _, a := range advisors {
		if a == nil {
			return nil, errors.New("client: nil advisor")
		}
		if tl, ok := a.(toolLooper); ok {
			custom = append(custom, tl)
		}
	}
	if len(custom) > 1 {
		return nil, fmt.Errorf("%w: %T and %T; a tool loop added to the chain replaces the default, and there can be only one",
			ErrTwoToolLoops, custom[0], custom[1])
	}
	all := slices.Clone(advisors)
	var loop Advisor
	if len(custom) == 1 {
		loop = custom[0]
	} else if !noLoop {
		loop = defaultToolLoop
		all = append(all, loop)
	}
	slices.SortStableFunc(all, func(a, b Advisor) int { return cmp.Compare(a.Order(), b.Order()) })
	if loop != nil {
		for _, a := range all {
			if hk, ok := a.(HistoryKeeper); ok && hk.KeepsHistory() && a.Order() > loop.Order() {
				ch.memoryInLoop = true
			}
		}
	}
	// Build the continuations from the model outwards, once, so a call allocates none.
	next := c.rt.callModel
	for i := len(all) - 1; i >= 0; i-- {
		a, n := all[i], next
		next = func(ctx context.Context, req *Request) (*Response, error) { return a.Advise(ctx, req, n) }
	}
	ch.next = next
	return ch, nil
}

// defaultToolLoop is the auto-registered tool loop; it takes the manager and telemetry from the
// request, so one instance serves every client.
var defaultToolLoop = NewToolLoop(ToolLoopConfig{})

func modelResponse(resp *chat.Response) *Response {
	out := &Response{Chat: resp, Usage: resp.Usage, ModelCalls: 1}
	if resp.HasToolCalls() {
		out.Outcome = OutcomeToolCalls
	}
	return out
}

// ErrNoResponse is returned when a model returns neither a response nor an error, or a
// response without a generation (an API answer with no choices or candidates, a stream that
// ended without a chunk): there is nothing to answer with or act on, and an empty answer would
// hide that.
var ErrNoResponse = errors.New("client: model returned no response")

// errNoGeneration is ErrNoResponse for a response without a generation.
var errNoGeneration = fmt.Errorf("%w: the response holds no generation", ErrNoResponse)

// callModel is the end of every chain: the model's Call, or on a stream the model's Stream,
// whose chunks go to the consumer as they arrive and are joined into the response.
func (rt *runtime) callModel(ctx context.Context, req *Request) (*Response, error) {
	if req.resumption() != nil {
		return nil, errors.New("client: a turn can be resumed only through a tool loop")
	}
	var runner ModelRunner
	if d := engine.From(ctx); d != nil {
		runner, _ = d.(ModelRunner)
	}
	if req.stream != nil && runner == nil {
		return rt.streamModel(ctx, req)
	}
	p := &req.Prompt
	ctx, call := rt.obs.startChat(ctx, p, false, req.untraced, req.replay)
	var resp *chat.Response
	var err error
	if runner != nil {
		var chunk func(*chat.Response) bool
		if req.stream != nil {
			chunk = func(c *chat.Response) bool { return req.send(&Event{Chunk: c}) }
		}
		resp, err = runner.CallModel(ctx, p, chunk)
	} else {
		resp, err = rt.model.Call(ctx, p)
	}
	switch {
	case err != nil:
	case resp == nil:
		err = ErrNoResponse
	case len(resp.Generations) == 0:
		err = errNoGeneration
	}
	call.end(ctx, resp, err)
	if err != nil {
		return nil, fmt.Errorf("client: model call: %w", err)
	}
	return modelResponse(resp), nil
}

func (rt *runtime) streamModel(ctx context.Context, req *Request) (*Response, error) {
	p := &req.Prompt
	ctx, call := rt.obs.startChat(ctx, p, true, req.untraced, req.replay)
	ms := getModelStream(req)
	defer ms.release()
	rt.model.Stream(ctx, p)(ms.yield())
	switch {
	case ms.err != nil:
		call.end(ctx, ms.agg.Response(), ms.err)
		return nil, fmt.Errorf("client: model stream: %w", ms.err)
	case ms.stopped:
		call.end(ctx, ms.agg.Response(), context.Canceled)
		return nil, errStopped
	}
	resp := ms.agg.Response()
	if len(resp.Generations) == 0 {
		call.end(ctx, resp, errNoGeneration)
		return nil, fmt.Errorf("client: model stream: %w", errNoGeneration)
	}
	call.end(ctx, resp, nil)
	return modelResponse(resp), nil
}

// modelStream is one model stream being read: its chunks joined and passed on. One value holds
// it all, where a range loop's state would be several allocations; the values are pooled
// (modelStreams), since their aggregators' inline storage makes them large to allocate.
type modelStream struct {
	req     *Request
	agg     chat.Aggregator
	ev      *Event // reused for every chunk when the consumer borrows events
	err     error
	stopped bool
	use     atomic.Uint64 // counts releases, so that a yield kept from an earlier use is known
}

var modelStreams = sync.Pool{New: func() any { return new(modelStream) }}

// yield returns the function the model's stream yields to during this use. A model that breaks
// the iterator contract and yields after its stream ended finds it refused, and cannot reach
// the stream of another turn that reuses the value.
func (ms *modelStream) yield() func(*chat.Response, error) bool {
	use := ms.use.Load()
	return func(chunk *chat.Response, err error) bool {
		if ms.use.Load() != use {
			return false
		}
		return ms.add(chunk, err)
	}
}

// getModelStream returns a model stream to read; release gives it back.
func getModelStream(req *Request) *modelStream {
	ms := modelStreams.Get().(*modelStream)
	ms.req = req
	return ms
}

// release gives the model stream back for another model call; what the last one returned
// shares nothing with it.
func (ms *modelStream) release() {
	ms.use.Add(1)
	ms.req, ms.err, ms.stopped = nil, nil, false
	ms.agg.Reset()
	if ms.ev != nil {
		*ms.ev = Event{}
	}
	modelStreams.Put(ms)
}

func (ms *modelStream) add(chunk *chat.Response, err error) bool {
	if ms.stopped || ms.err != nil {
		return false // a stream that goes on after being told to stop
	}
	if err != nil {
		ms.err = err
		return false
	}
	if chunk == nil {
		return true
	}
	ms.agg.Add(chunk)
	if ms.req.text {
		if t := chunkText(chunk); t != "" && !ms.req.stream.text(t) {
			ms.stopped = true
			return false
		}
		return true
	}
	ev := ms.ev
	if ev == nil || !ms.req.borrow {
		ev = new(Event)
		if ms.req.borrow {
			ms.ev = ev
		}
	}
	*ev = Event{Chunk: chunk}
	if !ms.req.send(ev) {
		ms.stopped = true
		return false
	}
	return true
}
