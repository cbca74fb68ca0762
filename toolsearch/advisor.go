package toolsearch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// ParamPinnedTools is the request parameter ([]string) naming tools to send on every request
// of the turn beside the search tool, on top of [Config.Pinned]. Set it with client.Spec.Param.
const ParamPinnedTools = "toolsearch.pinned"

// ParamCatalog is the request parameter (*[Catalog]) giving the catalog a turn searches, in place
// of [Config.Catalog]. Set it with client.Spec.Param.
const ParamCatalog = "toolsearch.catalog"

// Config configures an [Advisor]. The zero value gives a keyword index, five results a query,
// LRU eviction of 1,000 sessions and the default system prompt.
type Config struct {
	// Index holds the tool sets searched; nil means a [KeywordIndex] with the defaults.
	Index Index
	// Catalog, when set, is what turns search, and the request's own tools are sent to the model
	// as they are, beside the search tool. Without a catalog (here or as [ParamCatalog]) a turn
	// searches the request's tools. A catalog is read once, when it is built; the request's
	// tools are read on every turn.
	Catalog *Catalog
	// MaxResults is how many tools a search returns for each of its queries when the model does
	// not say; zero means DefaultMaxResults. A search returns MaxSearchResults tools at most.
	MaxResults int
	// Eviction decides which sessions to forget; nil means LRU(DefaultMaxSessions).
	Eviction Eviction
	// SystemPrompt is appended to the system prompt of every request of a turn; "" means
	// DefaultSystemPrompt.
	SystemPrompt string
	// DisableSystemPrompt sends no system-prompt text at all.
	DisableSystemPrompt bool
	// SearchToolDescription is the search tool's description; "" means
	// the index's own when it is a [QueryDescriber] (RegexSearchToolDescription for a
	// *RegexIndex) and DefaultSearchToolDescription otherwise.
	SearchToolDescription string
	// DisablePrerequisites keeps the search tool from bringing along the prerequisites of the
	// tools it finds: the one tool of the set that returns an input several tools require, such
	// as the login that returns the token they take ([Prerequisites]).
	DisablePrerequisites bool
	// Pinned names tools sent on every request beside the search tool, never searched for: the
	// few tools a model needs all the time. A tool the request's ToolChoice names is pinned too.
	Pinned []string
	// Native hands the search to the provider instead of adding the tools found to the requests:
	// every searchable tool is sent deferred (chat.Options.ToolSearch) with the provider's own
	// search (chat.ToolSearchServer, ToolSearchRegex, ToolSearchBM25), which needs no index, or
	// with the advisor's search tool and index (chat.ToolSearchClient), the provider loading what
	// it finds. "" means the advisor's own search alone. The package documentation says when to
	// choose which.
	Native chat.ToolSearchKind
	// NativeFallback makes a turn whose provider has no native tool search (it refuses with
	// chat.ErrToolSearchUnsupported before sending anything) go on with the advisor's own search
	// instead of failing. Beside a provider's own search, the advisor's search tool is then sent
	// too, deferred, for the turn to go on with it.
	NativeFallback bool
	// Loop configures the tool loop the advisor extends: manager, order, eligibility, history,
	// iteration cap. Its InitializeLoop and BeforeCall hooks run after the advisor's own, so
	// they see the search tool in place; its EndLoop hook runs before the advisor's own, which
	// lets go of the session; its other hooks run as given.
	Loop client.ToolLoopConfig

	now func() time.Time // for tests of eviction by age
}

// Advisor is the Tool Search Tool: a tool-calling advisor that sends the model one search tool
// instead of the request's whole catalog, and adds the tools each search finds to the following
// requests of the turn.
//
// It is the client's tool loop ([client.ToolLoop]) extended through its hooks:
// InitializeLoop takes hold of the session and of its tool set, indexing the set unless it is
// indexed already, BeforeCall sends the pinned tools, the search tool and the tools found so
// far, and EndLoop, which runs however the turn ends, lets go of them. A session is never
// evicted while a turn holds it.
//
// Tool sets are indexed once, whoever uses them: sessions (and requests) whose searchable tools
// have the same names, descriptions and schemas share one index session, which is cleared when
// the last session using it is evicted. With a [Catalog] a turn costs the same whatever the
// catalog's size; with the request's tools it reads and hashes their definitions.
// Register it like any advisor; it replaces the default tool loop:
//
//	c, err := client.New(model, client.WithAdvisors(toolsearch.New(toolsearch.Config{})))
//	answer := c.Prompt("Will it rain in Oslo tomorrow?").Tools(catalog...).
//		Param(client.ParamConversationID, userID).Call(ctx).Content()
//
// The session is the conversation (client.ParamConversationID); requests without one share a
// session per tool set. Tools found accumulate over a turn and start afresh with the next.
type Advisor struct {
	*client.ToolLoop
	cfg       Config
	index     Index
	sessions  *sessions
	sets      toolSets
	searchDef tool.Definition
	prompt    string
	// print is the fingerprint of the last turn on request tools, compared with the tools of a
	// turn outside a conversation (or in a new one); it keeps those definitions in memory.
	print atomic.Pointer[fingerprint]
}

// New returns an advisor configured by cfg.
func New(cfg Config) *Advisor {
	a := &Advisor{cfg: cfg, index: cfg.Index}
	if a.index == nil {
		a.index = newKeyword(&KeywordConfig{})
	}
	if a.cfg.MaxResults <= 0 {
		a.cfg.MaxResults = DefaultMaxResults
	}
	desc := cfg.SearchToolDescription
	if d, ok := a.index.(QueryDescriber); desc == "" && ok {
		desc = d.SearchToolDescription()
	}
	a.searchDef = SearchToolDefinition(desc)
	if !cfg.DisableSystemPrompt {
		a.prompt = cfg.SystemPrompt
		if a.prompt == "" {
			a.prompt = DefaultSystemPrompt
		}
	}
	a.sessions = newSessions(cfg.Eviction, cfg.now)

	loop := cfg.Loop
	// The advisor's hooks come first, so the user's see the search tool in place; its EndLoop
	// runs last, after the user's, to let go of the session.
	loop.Hooks = client.ChainHooks(client.ToolLoopHooks{
		InitializeLoop: a.initialize,
		BeforeCall:     a.before,
		EndLoop:        a.endLoop,
	}, loop.Hooks)
	a.ToolLoop = client.NewToolLoop(loop)
	return a
}

// SearchTool returns the definition of the search tool the model is sent.
func (a *Advisor) SearchTool() tool.Definition { return a.searchDef }

// EvictSession forgets a session now. Its tool set is cleared from the index unless another
// session or a running turn uses it; a turn running in the session goes on.
func (a *Advisor) EvictSession(ctx context.Context, id string) error {
	if ss := a.sessions.remove(id); ss != nil {
		return a.release(ctx, setsOf([]*session{ss}))
	}
	return nil
}

type turnKey struct{}
type loopKey struct{}

// turn is the advisor's hold on a session and on its tool set for one turn.
type turn struct {
	session *session
	set     *toolSet
	// pinned are sent on every request of the turn beside the search tool.
	pinned []tool.Tool
	// defs returns the searchable definitions, for indexing.
	defs func() []tool.Definition
	// searchable returns the searchable tools, in the order of defs.
	searchable func() []tool.Tool
	// lookup finds a searchable tool of the turn by name.
	lookup func(name string) (tool.Tool, bool)
}

// begin reads the turn's tools, takes hold of its session and of its tool set. It returns nil
// when there is nothing to search: the turn is then a plain tool loop. A turn it returns must be
// ended.
func (a *Advisor) begin(ctx context.Context, req *client.Request) (*turn, error) {
	opts := req.Prompt.Options
	cat := a.cfg.Catalog
	switch c := req.Param(ParamCatalog).(type) {
	case nil:
	case *Catalog:
		if c != nil {
			cat = c
		}
	default:
		return nil, fmt.Errorf("toolsearch: parameter %s is a %T, want *toolsearch.Catalog", ParamCatalog, c)
	}
	var reqTools []tool.Tool
	if opts != nil {
		reqTools = opts.Tools
	}
	if cat == nil && len(reqTools) == 0 {
		return nil, nil
	}
	pins := a.cfg.Pinned
	switch p := req.Param(ParamPinnedTools).(type) {
	case nil:
	case []string:
		pins = append(slices.Clip(pins), p...)
	case string:
		pins = append(slices.Clip(pins), p)
	default:
		return nil, fmt.Errorf("toolsearch: parameter %s is a %T, want []string", ParamPinnedTools, p)
	}
	if opts != nil {
		switch opts.ToolChoice {
		case "", "auto", "none", "required":
		default:
			pins = append(slices.Clip(pins), opts.ToolChoice)
		}
	}
	var (
		t   *turn
		key string
		err error
	)
	id, _ := req.StringParam(client.ParamConversationID)
	var fp *fingerprint
	if cat != nil {
		t, err = catalogTurn(cat, reqTools, pins)
		key = cat.key
	} else {
		t, fp, err = requestTurn(reqTools, pins, a.lastFingerprint(id))
		if fp != nil {
			key = fp.key
		}
	}
	if err != nil || t == nil {
		return nil, err
	}
	setID := "toolsearch:" + key
	if id == "" {
		id = setID
	}
	t.set = a.sets.acquire(setID) // the turn's hold
	if fp != nil {
		t.set.print.Store(fp)
		a.print.Store(fp)
	}
	ss, gone := a.sessions.acquire(id)
	t.session = ss
	unused := setsOf(gone)
	if old := ss.use(t.set, &a.sets); old != nil {
		unused = append(unused, old) // the set the session used before
	}
	a.release(ctx, unused)
	return t, nil
}

// lastFingerprint returns the fingerprint of the request's tools in the conversation's last
// turn, or else of the advisor's last turn on request tools, to compare this turn's tools with.
func (a *Advisor) lastFingerprint(conversation string) *fingerprint {
	if conversation != "" {
		if set := a.sessions.set(conversation); set != nil {
			if fp := set.print.Load(); fp != nil {
				return fp
			}
		}
	}
	return a.print.Load()
}

// catalogTurn is a turn that searches the catalog: pinned tools are looked up in it, and the
// request's tools are sent as they are.
func catalogTurn(cat *Catalog, reqTools []tool.Tool, pins []string) (*turn, error) {
	t := &turn{defs: func() []tool.Definition { return cat.defs }, searchable: func() []tool.Tool { return cat.tools }, lookup: cat.Lookup}
	sent := make(map[string]bool, len(reqTools)+len(pins))
	for _, rt := range reqTools {
		name := rt.Definition().Name
		switch _, inCatalog := cat.byName[name]; {
		case name == SearchToolName:
			return nil, fmt.Errorf("toolsearch: the request has a tool named %s, the search tool's name", SearchToolName)
		case inCatalog:
			return nil, fmt.Errorf("toolsearch: the request has a tool named %q and so has the catalog", name)
		}
		sent[name] = true
		t.pinned = append(t.pinned, rt)
	}
	for _, name := range pins {
		if ct, ok := cat.Lookup(name); ok && !sent[name] {
			sent[name] = true
			t.pinned = append(t.pinned, ct)
		}
	}
	return t, nil
}

// requestTurn is a turn that searches the request's tools but the pinned ones, and the
// fingerprint of those. It returns nil when every tool is pinned. It reads each definition
// once, comparing it with the one at its place in prev, the fingerprint of an earlier turn, and
// hashing it only if it differs: the definitions are kept, and the tools looked up by name, only
// when the set must be indexed or a search runs, which most turns on an unchanged catalog never
// do.
func requestTurn(reqTools []tool.Tool, pins []string, prev *fingerprint) (*turn, *fingerprint, error) {
	t := &turn{}
	p := printer{prev: prev}
	for _, rt := range reqTools {
		d := rt.Definition()
		if d.Name == SearchToolName {
			return nil, nil, fmt.Errorf("toolsearch: the request has a tool named %s, the search tool's name", SearchToolName)
		}
		if slices.Contains(pins, d.Name) {
			t.pinned = append(t.pinned, rt)
			continue
		}
		p.add(int(p.key.n), d)
	}
	if p.key.n == 0 {
		return nil, nil, nil
	}
	n := int(p.key.n)
	searchable := func(yield func(tool.Tool, tool.Definition)) {
		for _, rt := range reqTools {
			if d := rt.Definition(); !slices.Contains(pins, d.Name) {
				yield(rt, d)
			}
		}
	}
	t.defs = sync.OnceValue(func() []tool.Definition {
		defs := make([]tool.Definition, 0, n)
		searchable(func(_ tool.Tool, d tool.Definition) { defs = append(defs, d) })
		return defs
	})
	t.searchable = sync.OnceValue(func() []tool.Tool {
		tools := make([]tool.Tool, 0, n)
		searchable(func(rt tool.Tool, _ tool.Definition) { tools = append(tools, rt) })
		return tools
	})
	byName := sync.OnceValue(func() map[string]tool.Tool {
		m := make(map[string]tool.Tool, n)
		searchable(func(rt tool.Tool, d tool.Definition) { m[d.Name] = rt })
		return m
	})
	t.lookup = func(name string) (tool.Tool, bool) {
		rt, ok := byName()[name]
		return rt, ok
	}
	return t, p.done(), nil
}

// end releases the turn's hold on its session and tool set, and clears the sets no one uses
// any more.
func (a *Advisor) end(ctx context.Context, t *turn) {
	unused := setsOf(a.sessions.release(t.session))
	a.release(context.WithoutCancel(ctx), append(unused, t.set))
}

// setsOf takes the tool sets of sessions that are gone.
func setsOf(gone []*session) []*toolSet {
	var out []*toolSet
	for _, ss := range gone {
		if set := ss.take(); set != nil {
			out = append(out, set)
		}
	}
	return out
}

// release lets go of one hold on each set, clearing from the index the sets left unused. A
// failed Clear leaves memory in use but no wrong answers: the set is gone from the advisor, so
// its next turn indexes it again.
func (a *Advisor) release(ctx context.Context, sets []*toolSet) error {
	var errs []error
	for _, set := range sets {
		errs = append(errs, a.sets.release(ctx, set, a.index))
	}
	return errors.Join(errs...)
}

// endLoop is the EndLoop hook: the release of the turn's session.
func (a *Advisor) endLoop(ctx context.Context, req *client.Request, _ *client.Response, _ error) {
	if req.Turn == nil {
		return
	}
	if ts, _ := req.Turn.Value(turnKey{}).(*turn); ts != nil {
		a.end(ctx, ts)
	}
}

// initialize is the InitializeLoop hook: take hold of the session, index its tools unless they
// are indexed and set up the turn's search tool.
func (a *Advisor) initialize(ctx context.Context, req *client.Request) (*client.Request, error) {
	if req.Turn == nil {
		return req, nil
	}
	if err := checkNative(a.cfg.Native); err != nil {
		return nil, err
	}
	ts, err := a.begin(ctx, req)
	if err != nil || ts == nil {
		return req, err
	}
	req.Turn.SetValue(turnKey{}, ts) // from here on the end hook lets go of the session
	var native *nativeState
	if a.cfg.Native != "" {
		native = &nativeState{kind: a.cfg.Native}
		native.on.Store(true)
	}
	// The provider's own search needs no index, unless the turn falls back on the advisor's.
	if native == nil || native.kind == chat.ToolSearchClient {
		if err := ts.set.ensureIndexed(ctx, a.index, ts.defs); err != nil {
			return nil, fmt.Errorf("toolsearch: indexing the tools of session %q: %w", ts.session.info.ID, err)
		}
	}
	search := &searchTool{
		def:        a.searchDef,
		index:      a.index,
		session:    ts.set.id,
		maxResults: a.cfg.MaxResults,
		lookup:     ts.lookup,
		reindex: func(ctx context.Context) error {
			return ts.set.reindex(ctx, a.index, ts.defs)
		},
		native: native,
	}
	if !a.cfg.DisablePrerequisites {
		search.prereqs = func() *Prerequisites { return ts.set.prerequisites(ts.defs) }
	}
	ls := &loopState{search: search, pinned: ts.pinned, pinnedNames: make(map[string]bool, len(ts.pinned)),
		native: native, searchable: ts.searchable}
	for _, p := range ts.pinned {
		name := p.Definition().Name
		ls.pinnedNames[name] = true
		if native != nil {
			native.loaded = append(native.loaded, name)
		}
	}
	req.Turn.SetValue(loopKey{}, ls)
	return req, nil
}

// loopState is the turn's state inside the loop.
type loopState struct {
	search      *searchTool
	pinned      []tool.Tool
	pinnedNames map[string]bool
	// native is the turn's native search; nil without one.
	native *nativeState
	// searchable returns every searchable tool, sent deferred under native search.
	searchable func() []tool.Tool
}

// before is the BeforeCall hook: the model is sent the pinned tools, the search tool and the
// tools found so far in the turn, and the system prompt says how to search; under native search,
// the pinned tools and every searchable tool, deferred, with the provider's search or the
// advisor's search tool.
func (a *Advisor) before(_ context.Context, req *client.Request) (*client.Request, error) {
	if req.Turn == nil {
		return req, nil
	}
	ls, _ := req.Turn.Value(loopKey{}).(*loopState)
	if ls == nil {
		return req, nil
	}
	if ls.native != nil && ls.native.on.Load() {
		return a.nativeTools(req, ls), nil
	}
	return a.ownSearch(req, ls), nil
}

// withSystemSuffix returns msgs with suffix at the end of the leading system message (added if
// there is none). A system message that already holds it is left alone: with history kept, the
// loop sends back the messages it was sent.
func withSystemSuffix(msgs []chat.Message, suffix string) []chat.Message {
	if len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		if strings.Contains(msgs[0].Content, suffix) {
			return msgs
		}
		out := slices.Clone(msgs)
		if out[0].Content == "" {
			out[0].Content = suffix
		} else {
			out[0].Content += "\n\n" + suffix
		}
		return out
	}
	return append([]chat.Message{chat.System(suffix)}, msgs...)
}

var _ client.Advisor = (*Advisor)(nil)
