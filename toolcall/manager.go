package toolcall

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"

	"github.com/wield-ai/wield/internal/otelspan"
	"github.com/wield-ai/wield/tool"
)

// Config configures a Manager; the zero value is usable.
type Config struct {
	// Resolver resolves tool names given to [Manager.Resolve]; nil means requests may not name
	// tools.
	Resolver tool.Resolver
	// Concurrency is the most calls of one Execute running at once; zero or less means
	// [DefaultConcurrency].
	Concurrency int
	// ErrorProcessor decides what failed calls become; nil means [DefaultErrorProcessor]: tool
	// failures go back to the model.
	ErrorProcessor tool.ErrorProcessor
	// Limits cap the calls of one turn (defaults: 40 per tool, 150 in total; see [Limits]).
	Limits Limits
	// TracerProvider makes the execute_tool spans; nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the gen_ai.client.operation.duration histogram; nil means
	// otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// RecordContent puts tool arguments and results on spans and in debug logs, and failed calls'
	// error texts in span statuses. Off by default: they may be sensitive, and a tool's error
	// text is the result the model reads, often quoting the arguments.
	RecordContent bool
	// Logger receives debug-level step logs and panic reports; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultConcurrency returns the concurrency used when [Config.Concurrency] is not set: four calls
// per GOMAXPROCS, at least eight. Tool calls mostly wait on the network, so more of them than
// processors can usefully run at once; eight covers the parallel calls models usually make.
func DefaultConcurrency() int {
	return max(4*runtime.GOMAXPROCS(0), 8)
}

// Manager resolves the tools of a request and executes the tool calls of a model's response. It
// is safe for concurrent use and holds no per-conversation state.
type Manager struct {
	cfg         Config
	concurrency int
	processor   tool.ErrorProcessor
	tracer      trace.Tracer
	spans       *otelspan.Gate
	duration    metric.Float64Histogram
}

// New returns a Manager configured by cfg.
func New(cfg Config) *Manager {
	m := &Manager{cfg: cfg, concurrency: cfg.Concurrency, processor: cfg.ErrorProcessor}
	if m.concurrency <= 0 {
		m.concurrency = DefaultConcurrency()
	}
	if m.processor == nil {
		m.processor = DefaultErrorProcessor()
	}
	tp := cfg.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	m.tracer = tp.Tracer(instrumentationName)
	m.spans = otelspan.New(tp)
	mp := cfg.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	hist, err := mp.Meter(instrumentationName).Float64Histogram("gen_ai.client.operation.duration",
		metric.WithDescription("GenAI operation duration."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		m.logger().Warn("toolcall: cannot create the duration histogram; tool durations are not measured", "error", err)
		hist = noop.Float64Histogram{}
	}
	m.duration = hist
	return m
}

func (m *Manager) logger() *slog.Logger {
	if m.cfg.Logger != nil {
		return m.cfg.Logger
	}
	return slog.Default()
}

// Resolve returns tools followed by the tools names resolves to through the Resolver; two tools
// with one name are an error naming the duplicate.
//
// A name that is already among the tools (given in tools, or named twice, as merged defaults
// and per-call names may do) is not resolved again. A name the Resolver does not know, or any
// name when the Manager has no Resolver, is an error.
func (m *Manager) Resolve(ctx context.Context, tools []tool.Tool, names []string) ([]tool.Tool, error) {
	if len(names) == 0 {
		// Only duplicates to find: no definitions to keep.
		var buf [nameSetSliceMax]string
		seen := buf[:0]
		var index map[string]bool
		for i, t := range tools {
			if t == nil {
				return nil, fmt.Errorf("toolcall: tool %d is nil", i)
			}
			name := t.Definition().Name
			if index == nil && len(seen) == nameSetSliceMax {
				index = make(map[string]bool, 2*len(tools))
				for _, n := range seen {
					index[n] = true
				}
			}
			if index != nil {
				if index[name] {
					return nil, fmt.Errorf("%w %q", ErrDuplicateTool, name)
				}
				index[name] = true
				continue
			}
			if slices.Contains(seen, name) {
				return nil, fmt.Errorf("%w %q", ErrDuplicateTool, name)
			}
			seen = append(seen, name)
		}
		return slices.Clip(tools), nil
	}
	out, _, err := m.resolve(ctx, tools, names)
	return out, err
}

// resolve is Resolve also returning the tools' definitions, read once.
func (m *Manager) resolve(ctx context.Context, given []tool.Tool, toolNames []string) ([]tool.Tool, []tool.Definition, error) {
	if len(given)+len(toolNames) == 0 {
		return nil, nil, nil
	}
	n := len(given) + len(toolNames)
	var tools []tool.Tool // nil while they are given's: only names add to them
	if len(toolNames) > 0 {
		tools = make([]tool.Tool, 0, n)
	}
	defs := make([]tool.Definition, 0, n)
	var seen names
	for i, t := range given {
		if t == nil {
			return nil, nil, fmt.Errorf("toolcall: tool %d is nil", i)
		}
		d := t.Definition()
		if seen.has(defs, d.Name) {
			return nil, nil, fmt.Errorf("%w %q", ErrDuplicateTool, d.Name)
		}
		if tools != nil {
			tools = append(tools, t)
		}
		defs = append(defs, d)
		seen.added(defs, d.Name)
	}
	if tools == nil {
		tools = slices.Clip(given)
	}
	for _, name := range toolNames {
		if seen.has(defs, name) {
			continue
		}
		if m.cfg.Resolver == nil {
			return nil, nil, fmt.Errorf("%w (resolving %q)", ErrNoResolver, name)
		}
		t, err := m.cfg.Resolver.Resolve(ctx, name)
		if err != nil {
			return nil, nil, fmt.Errorf("toolcall: resolving tool %q: %w", name, err)
		}
		if t == nil {
			return nil, nil, fmt.Errorf("toolcall: resolving tool %q: the resolver returned no tool", name)
		}
		d := t.Definition()
		if seen.has(defs, d.Name) {
			return nil, nil, fmt.Errorf("%w %q (resolved from %q)", ErrDuplicateTool, d.Name, name)
		}
		tools = append(tools, t)
		defs = append(defs, d)
		seen.added(defs, d.Name)
		if name != d.Name {
			seen.alias(name) // the resolver mapped the name to a tool of another name
		}
	}
	return tools, defs, nil
}

// Definitions returns the definitions of Resolve's tools, in order.
func (m *Manager) Definitions(ctx context.Context, tools []tool.Tool, names []string) ([]tool.Definition, error) {
	_, defs, err := m.resolve(ctx, tools, names)
	return defs, err
}

// names tracks the tool names collected by resolve. Requests usually offer a handful of tools,
// for which scanning the definitions costs less than a map; past nameSetSliceMax a map takes over.
type names struct {
	index   map[string]struct{}
	aliases []string
}

const nameSetSliceMax = 16

func (s *names) has(defs []tool.Definition, name string) bool {
	if s.index != nil {
		_, ok := s.index[name]
		return ok
	}
	for _, d := range defs {
		if d.Name == name {
			return true
		}
	}
	for _, a := range s.aliases {
		if a == name {
			return true
		}
	}
	return false
}

// added records that name was appended to defs.
func (s *names) added(defs []tool.Definition, name string) {
	if s.index == nil && len(defs) > nameSetSliceMax {
		s.index = make(map[string]struct{}, 2*len(defs))
		for _, d := range defs {
			s.index[d.Name] = struct{}{}
		}
		for _, a := range s.aliases {
			s.index[a] = struct{}{}
		}
	}
	if s.index != nil {
		s.index[name] = struct{}{}
	}
}

// alias records a name that resolved to a tool of another name.
func (s *names) alias(name string) {
	s.aliases = append(s.aliases, name)
	if s.index != nil {
		s.index[name] = struct{}{}
	}
}
