// Package compact keeps a tool loop's turn inside its model's context window. Before each model
// call it measures the request ([budget]) and, in this order, caps each tool result to a marked
// excerpt, clears the oldest tool results to stubs, and summarises older rounds with a model,
// until the request fits its budget. Cut text stays retrievable by id through a tool the loop
// offers only once something was cut. A provider's context-length refusal is answered by
// compacting once more and retrying; a request that still does not fit ends with an
// [*OverflowError]. Above a number of tool definitions, [Compactor.Loop] runs the turn through
// tool search instead of sending every definition. With [Config.Native] the provider's own
// context management (Anthropic's compaction or context editing, the Responses API's compaction)
// acts first; what it reports doing, the history shows from the next call as the compactor's own
// stubs and summaries.
//
// The compaction runs as a [client.ToolLoopHooks] BeforeCall hook, so the loop's own history
// becomes the compacted form (a summary is made once, not on every call), while the turn's
// [client.Response.Messages] keep the originals. The summariser's call goes through
// [engine.Effect], so a durable turn records it and replays it.
//
// What compaction replaces stays recoverable beyond the turn: with a [Config.Store] (the memory
// repositories are stores) each cut result's original and each summary's originals are kept
// under the id the compacted form names, so that a turn resumed in another process, or a later
// turn whose history holds the compacted form, fetches them. A durable runtime that continues a
// turn in a new run carries the rest of the compaction's state with [Compactor.State] and
// [WithState]. A stopped or saved turn's state ([client.TurnState]) holds the history as
// compacted before its last model call ([client.Turn.KeepMessages]), and the results of the round
// that call asked for as the tools returned them (they are compacted before the next call).
package compact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/tool"
)

// FetchToolName is the name of the tool that reads cut results back.
const FetchToolName = "context_fetch"

// DefaultResultCap is the tool-result cap, in tokens, when the budget is not known.
const DefaultResultCap = 8192

// DefaultKeepResults is how many of the newest tool results clearing leaves whole.
const DefaultKeepResults = 4

// DefaultKeepRounds is how many of the newest tool rounds a summary leaves whole.
const DefaultKeepRounds = 2

// Config configures a [Compactor]. The zero value caps results and clears old ones against the
// model's window minus its output reserve; it summarises only with a Summarizer.
type Config struct {
	// Budget is the input tokens a request may hold; 0 takes the model's window minus its output
	// reserve from Limits (or [budget.Models]). A request whose model is not known and has no
	// Budget is only capped.
	Budget int
	// Limits overrides the model table ([budget.Models] when nil).
	Limits budget.Table
	// Family selects the token estimate; empty is [budget.FamilyGeneric], which errs high.
	Family budget.Family

	// ResultCap caps each tool result, in tokens: 0 is an eighth of the budget (at least 1024),
	// or [DefaultResultCap] without a budget; negative turns capping off.
	ResultCap int
	// KeepResults is how many of the newest results clearing leaves whole: 0 is
	// [DefaultKeepResults]; negative turns clearing off.
	KeepResults int
	// Summarizer summarises older rounds; nil turns summarising off. It may be the turn's model.
	Summarizer chat.Model
	// SummaryModel names the model in the summariser's options (empty: its default).
	SummaryModel string
	// KeepRounds is how many of the newest tool rounds a summary leaves whole: 0 is
	// [DefaultKeepRounds].
	KeepRounds int
	// Native asks the provider for its own context management where it offers it (the policy
	// "native where the provider offers it", through [ExtraNative]): Anthropic compacts the
	// conversation into a summary block on the models its documentation lists for compaction
	// and clears the oldest tool results on its side (context editing) on others, OpenAI's
	// Responses API compacts the conversation into an item of its own. It is asked to act at
	// three quarters of the budget (or the provider's least threshold, when higher),
	// before the compactor's own policies would; these stay on for providers that offer none.
	// What a provider reports it did, the next call's history shows as the compactor's own stubs
	// and summaries (with or without Native, so also when the provider's option is set
	// directly), with the originals readable through [FetchToolName].
	Native bool
	// DisableRetry turns off compacting again after a context-length refusal.
	DisableRetry bool
	// DisableCalibration keeps the estimate as the family's heuristic gives it. By default it is
	// corrected by the input tokens each response reports ([Compactor.Calibration]).
	DisableCalibration bool
	// Store keeps what compaction replaces beyond the turn, for requests that name a
	// conversation ([client.ParamConversationID]): each cut result's original and each
	// summary's originals, under the id the compacted form names. A turn resumed in another
	// process, or a later turn whose history holds the compacted form, then reads them back
	// through [FetchToolName]. The memory repositories ([memory.CompactionRepository]) are
	// stores. Nil keeps them in the turn only ([Compactor.State] carries them).
	Store Store
}

// Store keeps what compaction replaced, by conversation and id. In a durable turn its writes are
// recorded steps ([engine.Do]); its reads happen in the fetch tool's calls.
type Store interface {
	// KeepReplaced records that replacement took the place of originals under id.
	KeepReplaced(ctx context.Context, conversationID, id string, replacement chat.Message, originals []chat.Message) error
	// Replaced returns what KeepReplaced recorded under id; ok is false when nothing was.
	Replaced(ctx context.Context, conversationID, id string) (replacement chat.Message, originals []chat.Message, ok bool, err error)
}

// Compactor compacts a tool loop's requests. Install its [Compactor.Hooks] on the tool loop
// (chained with others by [client.ChainHooks]) and add it as an advisor: the advisor sits just
// inside the loop and recovers from context-length refusals.
type Compactor struct {
	cfg    Config
	limits budget.Table
	est    budget.Estimator
	last   atomic.Pointer[modelBudget] // the last model's budget: a table lookup scans prefixes
	// learned holds, per provider family, the correction of the estimate (thousandths) the
	// latest calibrated response gave; 0 when none yet.
	learned map[budget.Family]*atomic.Int32
	inner   atomic.Bool // an Innermost advisor compacts the whole request
}

type modelBudget struct {
	model     string
	maxTokens int
	budget    int
	learned   *atomic.Int32 // the correction of the model's family
}

// New returns a compactor configured by cfg.
func New(cfg Config) *Compactor {
	c := &Compactor{cfg: cfg, limits: cfg.Limits, est: budget.For(cfg.Family)}
	if c.limits == nil {
		c.limits = budget.Models()
	} else {
		c.limits = budget.Models().Merge(cfg.Limits)
	}
	if c.cfg.Family == "" {
		c.est = budget.For(budget.FamilyGeneric)
	}
	if c.cfg.KeepResults == 0 {
		c.cfg.KeepResults = DefaultKeepResults
	}
	if c.cfg.KeepRounds <= 0 {
		c.cfg.KeepRounds = DefaultKeepRounds
	}
	c.learned = make(map[budget.Family]*atomic.Int32)
	for _, f := range []budget.Family{budget.FamilyGeneric, budget.FamilyOpenAI, budget.FamilyAnthropic, budget.FamilyGemini, budget.FamilyBedrock, budget.FamilyOllama} {
		c.learned[f] = new(atomic.Int32)
	}
	return c
}

// OverflowError ends a turn whose request does not fit the model's window even compacted.
type OverflowError struct {
	// Requested is the request's tokens (the provider's count when it gave one, else the
	// estimate) and Limit the most it may hold.
	Requested, Limit int
	// Err is the provider's refusal, nil when the compactor refused to send the request.
	Err error
}

func (e *OverflowError) Error() string {
	s := fmt.Sprintf("compact: the request holds %d tokens, %d over the limit of %d, even compacted", e.Requested, e.Requested-e.Limit, e.Limit)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *OverflowError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, chat.ErrContextLength) true for an overflow the compactor found itself.
func (e *OverflowError) Is(target error) bool { return target == chat.ErrContextLength }

// Over returns how many tokens too many the request held.
func (e *OverflowError) Over() int { return e.Requested - e.Limit }

// turnState is what a turn keeps: the originals of cut results and a tighter budget after a
// refusal. It is rebuilt as the loop runs again, so a durable replay gets the same state.
type turnState struct {
	originals map[string]string // call id → the result's full text
	order     []string          // ids in the order they were cut, for a stable listing
	budget    int               // after a refusal: the budget that replaces the configured one
	// carried is set when the turn's messages hold a compacted form made before the turn
	// started (a resumed turn, a stored history, a carried State): the fetch tool is offered
	// though this turn cut nothing yet.
	carried bool
	conv    string // the request's conversation, for the Store
	store   Store
	// scale is the turn's correction of the estimate, in thousandths (0: none yet); retried
	// marks a call whose response answered a retried, compacted request.
	scale   int
	retried bool
	sizes   sizes // the estimate of the last request measured whole
}

// cut reports whether the turn holds compacted messages, so the fetch tool must be offered.
func (s *turnState) cut() bool { return len(s.originals) > 0 || s.carried }

type stateKey struct{}

// stateOf returns the state of req's turn, made on first use.
func (c *Compactor) stateOf(req *client.Request) *turnState {
	t := req.Turn
	if t != nil {
		if s, ok := t.Value(stateKey{}).(*turnState); ok {
			return s
		}
	}
	s := &turnState{store: c.cfg.Store}
	s.conv, _ = req.StringParam(client.ParamConversationID)
	if t != nil {
		t.SetValue(stateKey{}, s)
	}
	return s
}

// peekState returns the turn's state without making one: an ordinary turn needs none.
func peekState(t *client.Turn) *turnState {
	if t == nil {
		return nil
	}
	s, _ := t.Value(stateKey{}).(*turnState)
	return s
}

// keepText keeps text as the original of id for the turn's fetch tool; the first kept wins.
func (s *turnState) keepText(id, text string) bool {
	if _, ok := s.originals[id]; ok {
		return false
	}
	if s.originals == nil {
		s.originals = make(map[string]string)
	}
	s.originals[id] = text
	s.order = append(s.order, id)
	return true
}

// fetchID returns the id under which the original text of the result with call id id is
// kept: the call id, unless the turn kept another text under it already (a model that numbers
// its calls per response reuses ids across turns), then the call id with a suffix.
func (s *turnState) fetchID(id, text string) string {
	fid := id
	for n := 2; ; n++ {
		if kept, ok := s.originals[fid]; !ok || kept == text {
			return fid
		}
		fid = id + "~" + strconv.Itoa(n)
	}
}

var markedIDRe = regexp.MustCompile(`^[^\n]*?\bid ("(?:[^"\\\n]|\\.)*")`)

// markedID returns the fetch id an excerpt or a stub names.
func markedID(content string) (string, bool) {
	m := markedIDRe.FindStringSubmatch(content)
	if m == nil {
		return "", false
	}
	id, err := strconv.Unquote(m[1])
	return id, err == nil
}

// keep keeps orig under fid, for the turn and in the Store; r is what replaces it.
func (c *Compactor) keep(ctx context.Context, st *turnState, fid string, orig, r *chat.ToolResult) error {
	if !st.keepText(fid, orig.Content) {
		return nil // kept already, when it was first cut
	}
	o := *orig
	o.Parts = slices.Clone(o.Parts)
	return c.store(ctx, st, fid, chat.ToolMessage(*r), []chat.Message{chat.ToolMessage(o)})
}

// storeError is a Store's failure: the turn ends with it rather than go on with an original
// that would not be found again.
type storeError struct{ err error }

func (e *storeError) Error() string { return "compact: keeping what was replaced: " + e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// store keeps replacement and originals under id in the Store, as a recorded step of a durable
// turn.
func (c *Compactor) store(ctx context.Context, st *turnState, id string, replacement chat.Message, originals []chat.Message) error {
	if st.store == nil || st.conv == "" {
		return nil
	}
	err := engine.Do(ctx, "compact.keep", func(ctx context.Context) error {
		return st.store.KeepReplaced(ctx, st.conv, id, replacement, originals)
	})
	if err != nil {
		return &storeError{err}
	}
	return nil
}

// Budget returns the input budget of p: the configured one, else the model's window minus
// its output reserve; 0 when not known.
func (c *Compactor) Budget(p *chat.Prompt) int {
	if c.cfg.Budget > 0 {
		return c.cfg.Budget
	}
	return c.model(p).budget
}

// model returns what the compactor knows of p's model, cached for the last model asked about.
func (c *Compactor) model(p *chat.Prompt) *modelBudget {
	var name string
	var maxTokens int
	if p.Options != nil {
		name, maxTokens = p.Options.Model, p.Options.MaxTokens
	}
	if mb := c.last.Load(); mb != nil && mb.model == name && mb.maxTokens == maxTokens {
		return mb
	}
	mb := &modelBudget{model: name, maxTokens: maxTokens, learned: c.learned[familyOfModel(c.cfg.Family, name)]}
	if l, ok := c.limits.Lookup(name); ok {
		mb.budget = l.Budget(maxTokens)
	}
	c.last.Store(mb)
	return mb
}

func (c *Compactor) resultCap(b int) int {
	switch {
	case c.cfg.ResultCap < 0:
		return 0
	case c.cfg.ResultCap > 0:
		return c.cfg.ResultCap
	case b > 0:
		return max(b/8, 1024)
	}
	return DefaultResultCap
}

// Hooks returns the loop hooks that compact each request before its model call, and that
// continue a turn from the compacted state it carries ([WithState], or a Store).
func (c *Compactor) Hooks() client.ToolLoopHooks {
	return client.ToolLoopHooks{InitializeLoop: c.init, BeforeCall: c.before, AfterCall: c.after}
}

func (c *Compactor) before(ctx context.Context, req *client.Request) (*client.Request, error) {
	out, err := c.compactCall(ctx, req, true)
	if err != nil || !c.inner.Load() || hasTool(out.Prompt.Options, FetchToolName) {
		return out, err
	}
	// The innermost compaction may offer the fetch tool in this very call; the loop runs only
	// the tools of its own request, so that request carries it always ([Compactor.Innermost]).
	st := c.stateOf(out)
	o := out.Prompt.Options.Clone()
	o.Tools = append(o.Tools, c.fetchTool(st, c.requestBudget(&out.Prompt, st)))
	return out.WithOptions(o), nil
}

// requestBudget returns the budget of a request of p in the turn of st (nil: none yet).
func (c *Compactor) requestBudget(p *chat.Prompt, st *turnState) int {
	return c.budgetOf(c.model(p), st)
}

// budgetOf returns the budget of a request for the model of mb in the turn of st (nil: none yet).
func (c *Compactor) budgetOf(mb *modelBudget, st *turnState) int {
	b := c.cfg.Budget
	if b <= 0 {
		b = mb.budget
	}
	if st != nil && st.budget > 0 && (b == 0 || st.budget < b) {
		b = st.budget
	}
	return b
}

func (c *Compactor) fetchTool(st *turnState, b int) *fetchTool {
	return &fetchTool{st: st, chunk: max(c.resultCap(b), 1024) * 3}
}

// compactCall compacts req before its model call; loop says req is the tool loop's own request,
// whose compacted messages the loop then keeps ([client.Turn.KeepMessages]).
func (c *Compactor) compactCall(ctx context.Context, req *client.Request, loop bool) (*client.Request, error) {
	mb := c.model(&req.Prompt)
	st := peekState(req.Turn)
	b := c.budgetOf(mb, st)
	e := c.estimatorOf(ctx, mb, st)
	if (st == nil || !st.cut()) && c.fits(e, req, st, b) {
		return c.native(req, b), nil // the ordinary case: nothing cut so far, nothing to cut now
	}
	if st == nil {
		st = c.stateOf(req)
	}
	out, ev, n, err := c.compact(ctx, req, st, b, e)
	if err != nil {
		return nil, err
	}
	if ev != nil {
		c.carry(req.Turn)
		if loop && req.Turn != nil {
			// The loop's own messages become the compacted form now, not from the next call:
			// a state saved or stopped before then holds it.
			req.Turn.KeepMessages(out.Prompt.Messages)
		}
		if !out.Emit(&client.Event{Compaction: ev}) {
			return nil, context.Canceled
		}
	}
	if b > 0 && n > b {
		return nil, &OverflowError{Requested: n, Limit: b}
	}
	return c.native(out, b), nil
}

// compact applies the policies to req against budget b; ev is nil when nothing changed.
// n is the estimate of the request returned (0 without a budget).
func (c *Compactor) compact(ctx context.Context, req *client.Request, st *turnState, b int, e budget.Estimator) (_ *client.Request, _ *client.Compaction, n int, _ error) {
	h := &history{msgs: req.Prompt.Messages}
	ev := &client.Compaction{Budget: b, Scale: e.Scale()}
	if hasNative(h.msgs) {
		// What the provider's own context management did to the last request, the history shows
		// from now on.
		var err error
		if h.msgs, err = c.mirror(ctx, h.msgs, st, e, ev); err != nil {
			return nil, nil, 0, err
		}
		h.copied = true
	}
	mirrored := len(ev.Cleared) > 0 || ev.Summarized > 0
	if err := c.capResults(ctx, h, st, b, e, ev); err != nil {
		return nil, nil, 0, err
	}
	withTool := func(ms []chat.Message) *client.Request {
		out := req.WithMessages(ms)
		if st.cut() && !hasTool(out.Prompt.Options, FetchToolName) {
			o := out.Prompt.Options.Clone()
			o.Tools = append(o.Tools, c.fetchTool(st, b))
			out = out.WithOptions(o)
		}
		return out
	}
	cur := withTool(h.msgs)
	if b <= 0 {
		out, done := finish(e, req, cur, ev)
		return out, done, 0, nil
	}
	// Measured with the fetch tool, which the request carries once anything was cut.
	n = e.Scaled(st.sizes.raw(c.est, &cur.Prompt))
	if n <= b && len(ev.Capped) == 0 && !mirrored {
		return cur, nil, n, nil
	}
	ev.Before = e.Prompt(&req.Prompt)
	if n > b && c.cfg.KeepResults > 0 {
		if err := c.clearOldest(ctx, h, st, b, n, e, ev); err != nil {
			return nil, nil, 0, err
		}
		cur = withTool(h.msgs)
		n = e.Prompt(&cur.Prompt)
	}
	if n > b && c.cfg.Summarizer != nil {
		s, cut, sid, err := c.summarise(ctx, h.msgs, st)
		var se *storeError
		switch {
		case errors.As(err, &se):
			return nil, nil, 0, err
		case err != nil:
			ev.SummaryError = err.Error()
		case cut > 0:
			h.msgs = s
			ev.Summarized, ev.SummaryID = cut, sid
			cur = withTool(h.msgs)
			n = e.Prompt(&cur.Prompt)
		}
	}
	out, done := finish(e, req, cur, ev)
	return out, done, n, nil
}

// history is the request's messages as compaction rewrites them: shared with the request until
// the first change copies them.
type history struct {
	msgs   []chat.Message
	copied bool
}

// result returns the j-th result of message i, in a copy of the message the history owns.
func (h *history) result(i, j int) *chat.ToolResult {
	if !h.copied {
		h.msgs = append([]chat.Message(nil), h.msgs...)
		h.copied = true
	}
	h.msgs[i] = cloneResults(h.msgs[i])
	return &h.msgs[i].ToolResults[j]
}

// capResults replaces each result over the result cap with a marked excerpt, its original kept.
func (c *Compactor) capResults(ctx context.Context, h *history, st *turnState, b int, e budget.Estimator, ev *client.Compaction) error {
	rc := c.resultCap(b)
	if rc <= 0 {
		return nil
	}
	for i := range h.msgs {
		for j := range h.msgs[i].ToolResults {
			r := &h.msgs[i].ToolResults[j]
			// A fetch's chunk is sized by the compactor already; capping it would loop.
			if r.Name == FetchToolName || len(r.Content) <= rc || e.Text(r.Content) <= rc { // a token holds at least a byte
				continue
			}
			r = h.result(i, j)
			orig := *r
			fid := st.fetchID(r.ID, r.Content)
			r.Content = c.excerpt(e, r, fid, rc)
			if err := c.keep(ctx, st, fid, &orig, r); err != nil {
				return err
			}
			ev.Capped = append(ev.Capped, r.ID)
		}
	}
	return nil
}

// clearOldest replaces results with stubs, oldest first, until the n tokens are within b,
// leaving the newest KeepResults results whole.
func (c *Compactor) clearOldest(ctx context.Context, h *history, st *turnState, b, n int, e budget.Estimator, ev *client.Compaction) error {
	var where [][2]int
	for i := range h.msgs {
		for j := range h.msgs[i].ToolResults {
			if !strings.HasPrefix(h.msgs[i].ToolResults[j].Content, clearedMark) {
				where = append(where, [2]int{i, j})
			}
		}
	}
	for k := 0; k < len(where)-c.cfg.KeepResults && n > b; k++ {
		r := h.result(where[k][0], where[k][1])
		orig := *r
		before := e.Result(r)
		fid, capped := "", strings.HasPrefix(r.Content, cutMark)
		if capped {
			fid, capped = markedID(r.Content) // its original is kept already, under this id
		}
		if !capped {
			fid = st.fetchID(r.ID, r.Content)
		}
		r.Content = fmt.Sprintf("%s %s result, id %q, %d tokens; %s reads it]", clearedMark, r.Name, fid, before, FetchToolName)
		r.Parts = nil
		if !capped {
			if err := c.keep(ctx, st, fid, &orig, r); err != nil {
				return err
			}
		}
		n += e.Result(r) - before
		ev.Cleared = append(ev.Cleared, r.ID)
	}
	return nil
}

func finish(e budget.Estimator, req, cur *client.Request, ev *client.Compaction) (*client.Request, *client.Compaction) {
	if len(ev.Capped) == 0 && len(ev.Cleared) == 0 && ev.Summarized == 0 && ev.SummaryError == "" {
		return cur, nil
	}
	if ev.Before == 0 {
		ev.Before = e.Prompt(&req.Prompt)
	}
	ev.After = e.Prompt(&cur.Prompt)
	return cur, ev
}

const (
	cutMark     = "[excerpt:"
	clearedMark = "[cleared:"
)

// excerpt returns the head and tail of r's text within about rc tokens, marked with what was
// cut and how to read the rest.
func (c *Compactor) excerpt(e budget.Estimator, r *chat.ToolResult, fid string, rc int) string {
	s := r.Content
	total := e.Text(s)
	keep := rc * 3 // characters; checked against the estimate below
	for {
		head := cutAt(s, keep*2/3)
		tail := reverseBound(s, keep/3)
		out := fmt.Sprintf("%s %d of %d bytes shown (about %d tokens in all); call %s with id %q and an offset to read the rest]\n%s\n[… %d bytes cut …]\n%s",
			cutMark, len(head)+len(tail), len(s), total, FetchToolName, fid, head, len(s)-len(head)-len(tail), tail)
		if e.Text(out) <= rc || keep < 64 {
			return out
		}
		keep /= 2
	}
}

// cutAt returns the longest prefix of s of at most n bytes that ends on a rune boundary.
func cutAt(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// reverseBound returns the suffix of s of at most n bytes that starts on a rune boundary.
func reverseBound(s string, n int) string {
	if n >= len(s) {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

func cloneResults(m chat.Message) chat.Message {
	m.ToolResults = append([]chat.ToolResult(nil), m.ToolResults...)
	return m
}

func hasTool(o *chat.Options, name string) bool {
	if o == nil {
		return false
	}
	for _, t := range o.Tools {
		if t.Definition().Name == name {
			return true
		}
	}
	return false
}

// summaryPrompt asks for what the rest of the turn needs.
const summaryPrompt = `Summarise the conversation below for an assistant that will continue it without seeing it again. Keep, verbatim where short: what the user asked, every decision taken, and every named fact (names, numbers, ids, paths, dates, values) found in tool results. Note which tool calls were made and what each found. Write plain text, no preamble.`

// summaryMark begins a summary message, so that a later summary folds it in; the rest of its
// first line names its id.
const summaryMark = "[summary of the earlier conversation"

// summarise replaces the messages before the newest KeepRounds rounds (after the leading system
// messages) by one summary message; it never splits a call from its result. cut is the number
// of messages replaced.
func (c *Compactor) summarise(ctx context.Context, msgs []chat.Message, st *turnState) (_ []chat.Message, cut int, id string, _ error) {
	start := 0
	for start < len(msgs) && msgs[start].Role == chat.RoleSystem {
		start++
	}
	// The split is at an assistant message with calls, counted back from the end.
	end, rounds := len(msgs), 0
	for i := len(msgs) - 1; i > start; i-- {
		if msgs[i].Role == chat.RoleAssistant && len(msgs[i].ToolCalls) > 0 {
			rounds++
			if rounds == c.cfg.KeepRounds {
				end = i
				break
			}
		}
	}
	if rounds < c.cfg.KeepRounds || end-start < 2 {
		return msgs, 0, "", nil
	}
	old := msgs[start:end]
	var b strings.Builder
	for i := range old {
		writeMessage(&b, &old[i], st)
	}
	text, err := engine.Effect(ctx, "compact.summarise", func(ctx context.Context) (string, error) {
		p := &chat.Prompt{
			Messages: []chat.Message{chat.System(summaryPrompt), chat.User(b.String())},
			Options:  &chat.Options{Model: c.cfg.SummaryModel},
		}
		resp, err := c.cfg.Summarizer.Call(ctx, p)
		if err != nil {
			return "", err
		}
		return resp.Text(), nil
	})
	if err != nil {
		return msgs, 0, "", fmt.Errorf("compact: summariser: %w", err)
	}
	if strings.TrimSpace(text) == "" {
		return msgs, 0, "", errors.New("compact: summariser returned nothing")
	}
	// Results summarised away stay readable by id, and so does the whole of what the summary
	// replaced, by the summary's id: a digest of it, the same in a replay.
	for i := range old {
		for j, r := range old[i].ToolResults {
			if !strings.HasPrefix(r.Content, clearedMark) && !strings.HasPrefix(r.Content, cutMark) {
				fid := st.fetchID(r.ID, r.Content)
				stub := r
				stub.Content, stub.Parts = fmt.Sprintf("%s %s result, id %q, in the summary]", clearedMark, r.Name, fid), nil
				if err := c.keep(ctx, st, fid, &old[i].ToolResults[j], &stub); err != nil {
					return msgs, 0, "", err
				}
			}
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	id = "summary-" + hex.EncodeToString(sum[:8])
	summary := chat.User(fmt.Sprintf("%s, id %q; %s reads what it replaced]\n%s", summaryMark, id, FetchToolName, text))
	st.keepText(id, b.String())
	if err := c.store(ctx, st, id, summary, slices.Clone(old)); err != nil {
		return msgs, 0, "", err
	}
	out := make([]chat.Message, 0, len(msgs)-(end-start)+1)
	out = append(out, msgs[:start]...)
	out = append(out, summary)
	out = append(out, msgs[end:]...)
	return out, end - start, id, nil
}

// writeMessage renders m for the summariser, with cut results' full text where it is short
// enough to matter (the summariser has a window too: each result is bounded).
func writeMessage(b *strings.Builder, m *chat.Message, st *turnState) {
	const perResult = 32 << 10
	b.WriteString(string(m.Role))
	b.WriteString(": ")
	b.WriteString(m.Text())
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(b, "\n  call %s %s(%s)", tc.ID, tc.Name, cutAt(tc.Arguments, 1024))
	}
	for _, r := range m.ToolResults {
		text := r.Content
		if st != nil && (strings.HasPrefix(text, cutMark) || strings.HasPrefix(text, clearedMark)) {
			if fid, ok := markedID(text); ok {
				if o, ok := st.originals[fid]; ok {
					text = o
				}
			}
		}
		fmt.Fprintf(b, "\n  result of %s (call %s): %s", r.Name, r.ID, cutAt(text, perResult))
	}
	b.WriteByte('\n')
}

// fetchTool reads a cut result back by id, a chunk at a time.
type fetchTool struct {
	st    *turnState
	chunk int // bytes per call
}

var fetchSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"the call id the excerpt or stub names"},"offset":{"type":"integer","minimum":0,"description":"byte offset to read from (0 for the start)"}},"required":["id"]}`)

func (f *fetchTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        FetchToolName,
		Description: "Reads the full text of a tool result that was cut or cleared to save context, by the call id its excerpt or stub names, a chunk at a time from offset.",
		InputSchema: fetchSchema,
	}
}

func (f *fetchTool) Metadata() tool.Metadata {
	closed := false
	return tool.Metadata{ReadOnly: true, Idempotent: true, OpenWorld: &closed}
}

func (f *fetchTool) Call(ctx context.Context, args string) (string, error) {
	var in struct {
		ID     string `json:"id"`
		Offset int    `json:"offset"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", fmt.Errorf("arguments: %w", err)
	}
	text, ok := f.st.originals[in.ID]
	if !ok {
		var err error
		if text, ok, err = f.st.stored(ctx, in.ID); err != nil {
			return "", err
		}
	}
	if !ok {
		return "", fmt.Errorf("no cut result has id %q; cut results: %s", in.ID, strings.Join(f.st.order, ", "))
	}
	if in.Offset < 0 || in.Offset > len(text) {
		return "", fmt.Errorf("offset %d is outside the result's %d bytes", in.Offset, len(text))
	}
	for in.Offset < len(text) && !utf8.RuneStart(text[in.Offset]) {
		in.Offset++
	}
	part := cutAt(text[in.Offset:], f.chunk)
	next := in.Offset + len(part)
	if next >= len(text) {
		return fmt.Sprintf("[bytes %d–%d of %d, the end]\n%s", in.Offset, next, len(text), part), nil
	}
	return fmt.Sprintf("[bytes %d–%d of %d; call again with offset %d for more]\n%s", in.Offset, next, len(text), next, part), nil
}
