package toolsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// ParamPinnedTools is the request parameter ([]string) naming tools to send on every request
// of the turn beside the search tool, on top of [Config.Pinned]. Set it with client.Spec.Param.
const ParamPinnedTools = "toolsearch.pinned"

// Config configures an [Advisor]. The zero value gives a keyword index, five results a search,
// LRU eviction of 1,000 sessions and the default system prompt.
type Config struct {
	// Index holds the sessions' tools; nil means NewKeywordIndex(nil).
	Index Index
	// MaxResults is how many tools a search returns when the model does not say; zero means
	// DefaultMaxResults.
	MaxResults int
	// Eviction decides which sessions to forget; nil means LRU(DefaultMaxSessions).
	Eviction Eviction
	// SystemPrompt is appended to the system prompt of every request of a turn; "" means
	// DefaultSystemPrompt.
	SystemPrompt string
	// DisableSystemPrompt sends no system-prompt text at all.
	DisableSystemPrompt bool
	// SearchToolDescription is the search tool's description; "" means
	// RegexSearchToolDescription for a *RegexIndex and DefaultSearchToolDescription otherwise.
	SearchToolDescription string
	// Pinned names tools sent on every request beside the search tool, never searched for: the
	// few tools a model needs all the time. A tool the request's ToolChoice names is pinned too.
	Pinned []string
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
// InitializeLoop takes hold of the session and indexes the request's tools in the session's
// index when their fingerprint changed, BeforeCall sends the pinned tools, the search tool and
// the tools found so far, and EndLoop, which runs however the turn ends, lets go of the session.
// A session is never evicted while a turn holds it.
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
	searchDef tool.Definition
	prompt    string
}

// New returns an advisor configured by cfg.
func New(cfg Config) *Advisor {
	a := &Advisor{cfg: cfg, index: cfg.Index}
	if a.index == nil {
		a.index = NewKeywordIndex(nil)
	}
	if a.cfg.MaxResults <= 0 {
		a.cfg.MaxResults = DefaultMaxResults
	}
	desc := cfg.SearchToolDescription
	if _, regex := a.index.(*RegexIndex); desc == "" && regex {
		desc = RegexSearchToolDescription
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

// EvictSession forgets a session now: its index is cleared and its next turn indexes its tools
// anew. A turn running in the session goes on, re-indexing if it searches.
func (a *Advisor) EvictSession(ctx context.Context, id string) error {
	a.sessions.remove(id)
	return a.index.Clear(ctx, id)
}

type turnKey struct{}
type loopKey struct{}

// turn is the advisor's hold on a session for one turn.
type turn struct {
	id          string
	session     *session
	pinned      []tool.Tool
	searchable  map[string]tool.Tool
	defs        []tool.Definition
	fingerprint string
}

// begin splits the request's tools into pinned and searchable ones and takes hold of the
// session. It returns nil when there is nothing to search: the turn is then a plain tool loop.
// A turn it returns must be ended.
func (a *Advisor) begin(ctx context.Context, req *client.Request) (*turn, error) {
	opts := req.Prompt.Options
	if opts == nil || len(opts.Tools) == 0 {
		return nil, nil
	}
	pins := slices.Clone(a.cfg.Pinned)
	switch p := req.Param(ParamPinnedTools).(type) {
	case nil:
	case []string:
		pins = append(pins, p...)
	case string:
		pins = append(pins, p)
	default:
		return nil, fmt.Errorf("toolsearch: parameter %s is a %T, want []string", ParamPinnedTools, p)
	}
	switch opts.ToolChoice {
	case "", "auto", "none", "required":
	default:
		pins = append(pins, opts.ToolChoice)
	}
	ts := &turn{searchable: make(map[string]tool.Tool, len(opts.Tools))}
	for _, t := range opts.Tools {
		d := t.Definition()
		if d.Name == SearchToolName {
			return nil, fmt.Errorf("toolsearch: the request has a tool named %s, the search tool's name", SearchToolName)
		}
		if slices.Contains(pins, d.Name) {
			ts.pinned = append(ts.pinned, t)
			continue
		}
		ts.searchable[d.Name] = t
		ts.defs = append(ts.defs, d)
	}
	if len(ts.defs) == 0 {
		return nil, nil
	}
	ts.fingerprint = Fingerprint(ts.defs)
	ts.id, _ = req.StringParam(client.ParamConversationID)
	if ts.id == "" {
		ts.id = "toolsearch:" + ts.fingerprint
	}
	var gone []string
	ts.session, gone = a.sessions.acquire(ts.id)
	a.clear(ctx, gone)
	return ts, nil
}

// end releases the turn's hold on its session and clears the sessions evicted meanwhile.
func (a *Advisor) end(ctx context.Context, ts *turn) {
	a.clear(context.WithoutCancel(ctx), a.sessions.release(ts.session))
}

func (a *Advisor) clear(ctx context.Context, ids []string) {
	for _, id := range ids {
		// A failed Clear leaves memory in use but no wrong answers: the session is gone from
		// the advisor, so its next turn indexes again.
		_ = a.index.Clear(ctx, id)
	}
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

// initialize is the InitializeLoop hook: take hold of the session, index its tools if they
// changed and set up the turn's search tool.
func (a *Advisor) initialize(ctx context.Context, req *client.Request) (*client.Request, error) {
	if req.Turn == nil {
		return req, nil
	}
	ts, err := a.begin(ctx, req)
	if err != nil || ts == nil {
		return req, err
	}
	req.Turn.SetValue(turnKey{}, ts) // from here on the end hook lets go of the session
	if err := a.ensureIndexed(ctx, ts); err != nil {
		return nil, err
	}
	search := &searchTool{
		def:        a.searchDef,
		index:      a.index,
		session:    ts.id,
		maxResults: a.cfg.MaxResults,
		catalog:    ts.searchable,
		reindex: func(ctx context.Context) error {
			return a.index.IndexTools(ctx, ts.id, ts.defs)
		},
	}
	req.Turn.SetValue(loopKey{}, &loopState{search: search, pinned: ts.pinned})
	return req, nil
}

func (a *Advisor) ensureIndexed(ctx context.Context, ts *turn) error {
	s := ts.session
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fingerprint == ts.fingerprint {
		return nil
	}
	if err := a.index.IndexTools(ctx, ts.id, ts.defs); err != nil {
		return fmt.Errorf("toolsearch: indexing the tools of session %q: %w", ts.id, err)
	}
	s.fingerprint = ts.fingerprint
	return nil
}

// loopState is the turn's state inside the loop.
type loopState struct {
	search *searchTool
	pinned []tool.Tool
}

// before is the BeforeCall hook: the model is sent the pinned tools, the search tool and the
// tools found so far in the turn, and the system prompt says how to search.
func (a *Advisor) before(_ context.Context, req *client.Request) (*client.Request, error) {
	if req.Turn == nil {
		return req, nil
	}
	ls, _ := req.Turn.Value(loopKey{}).(*loopState)
	if ls == nil {
		return req, nil
	}
	found := ls.search.discovered()
	tools := make([]tool.Tool, 0, len(ls.pinned)+1+len(found))
	tools = append(tools, ls.pinned...)
	tools = append(tools, ls.search)
	tools = append(tools, found...)
	o := req.Prompt.Options.Clone()
	o.Tools = tools
	r := req.WithOptions(o)
	if a.prompt != "" {
		r = r.WithMessages(withSystemSuffix(r.Prompt.Messages, a.prompt))
	}
	return r, nil
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
