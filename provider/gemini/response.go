package gemini

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/toolname"
)

// decoder turns responses (a whole one, or the chunks of a stream) into chat.Responses. It keeps
// what spans chunks: the number of calls per candidate (for distinct indexes and ids), thoughts
// not yet complete, and function calls whose arguments Vertex AI streams in pieces.
type decoder struct {
	responseID string
	fallbackID string // used for made-up call ids when the API sends no responseId
	cands      []*candState
	blocked    bool
	// names gives calls the tools' own names.
	names *toolname.Map
}

type candState struct {
	index    int32
	calls    int  // function calls yielded so far
	finished bool // a finish reason arrived
	thought  strings.Builder
	hasThink bool
	thinkSig string
	open     *openCall
}

// openCall is a function call whose arguments are still streaming (Vertex AI partialArgs).
type openCall struct {
	id, name, sig string
	args          map[string]any
}

func newDecoder() *decoder { return &decoder{} }

func (d *decoder) state(index int32) *candState {
	for _, c := range d.cands {
		if c.index == index {
			return c
		}
	}
	c := &candState{index: index}
	d.cands = append(d.cands, c)
	return c
}

// response converts one response or stream chunk.
func (d *decoder) response(r *genai.GenerateContentResponse) *chat.Response {
	out := &chat.Response{ID: r.ResponseID, Model: r.ModelVersion, Usage: usage(r.UsageMetadata), Raw: r}
	if d.responseID == "" {
		d.responseID = r.ResponseID
	}
	if len(r.Candidates) == 0 && r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
		d.blocked = true
		out.Generations = append(out.Generations, chat.Generation{
			Message:      chat.Message{Role: chat.RoleAssistant},
			FinishReason: chat.FinishContentFilter,
		})
		return out
	}
	for _, c := range r.Candidates {
		if c != nil {
			out.Generations = append(out.Generations, d.candidate(c))
		}
	}
	return out
}

func (d *decoder) candidate(c *genai.Candidate) chat.Generation {
	st := d.state(c.Index)
	g := chat.Generation{Index: int(c.Index), Message: chat.Message{Role: chat.RoleAssistant}}
	var text strings.Builder
	if c.Content != nil {
		for _, p := range c.Content.Parts {
			if p == nil {
				continue
			}
			sig := encodeSignature(p.ThoughtSignature)
			switch {
			case p.FunctionCall != nil:
				st.flushThought(&g)
				d.functionCall(st, p.FunctionCall, sig, &g)
			case p.Thought:
				st.thought.WriteString(p.Text)
				st.hasThink = true
				if sig != "" {
					st.thinkSig = sig
					st.flushThought(&g) // a signature closes the thought
				}
			case p.InlineData != nil || p.FileData != nil:
				st.flushThought(&g)
				if mp, ok := mediaPart(p); ok {
					mp.Signature = sig
					g.Message.Parts = append(g.Message.Parts, mp)
				}
			case p.Text == "" && sig != "" && (st.calls > 0 || st.open != nil):
				// A signature on its own empty part after the function calls: kept to go back
				// after them, as a message's content goes before its calls.
				st.flushThought(&g)
				d.closeCall(st, &g)
				g.Message.Reasoning = append(g.Message.Reasoning, chat.Reasoning{Provider: providerName, ID: afterCallsID, Signature: sig})
			case p.Text != "" || sig != "":
				// Text stays in Content until a signed part comes; from then on every part keeps
				// its place, so each signature goes back on the part it came with.
				st.flushThought(&g)
				if sig == "" && len(g.Message.Parts) == 0 {
					text.WriteString(p.Text)
					break
				}
				g.Message.Parts = appendText(g.Message.Parts, content.Part{Kind: content.KindText, Text: p.Text, Signature: sig})
			}
		}
	}
	g.Message.Content = text.String()
	if c.FinishReason != "" && c.FinishReason != genai.FinishReasonUnspecified {
		d.closeCall(st, &g)
		st.flushThought(&g)
		st.finished = true
		g.FinishReason = finishReason(c.FinishReason, st.calls > 0)
	}
	return g
}

func (d *decoder) functionCall(st *candState, fc *genai.FunctionCall, sig string, g *chat.Generation) {
	streamed := len(fc.PartialArgs) > 0 || fc.WillContinue != nil ||
		(fc.Name == "" && fc.ID == "" && fc.Args == nil)
	if !streamed {
		d.closeCall(st, g)
		d.emit(st, fc.ID, fc.Name, marshalArgs(fc.Args), sig, g)
		return
	}
	if fc.Name != "" {
		d.closeCall(st, g)
		st.open = &openCall{id: fc.ID, name: fc.Name, args: fc.Args}
	}
	if st.open == nil {
		return // argument pieces without a call to belong to: nothing to keep
	}
	if st.open.sig == "" {
		st.open.sig = sig
	}
	for _, pa := range fc.PartialArgs {
		if pa != nil {
			st.open.set(pa)
		}
	}
	if fc.WillContinue == nil || !*fc.WillContinue {
		d.closeCall(st, g)
	}
}

// closeCall yields the open streamed call, now complete.
func (d *decoder) closeCall(st *candState, g *chat.Generation) {
	if c := st.open; c != nil {
		st.open = nil
		d.emit(st, c.id, c.name, marshalArgs(c.args), c.sig, g)
	}
}

func (d *decoder) emit(st *candState, id, name, args, sig string, g *chat.Generation) {
	if id == "" {
		id = d.syntheticID(st.index, st.calls)
	}
	g.Message.ToolCalls = append(g.Message.ToolCalls, chat.ToolCall{
		Index: st.calls, ID: id, Name: d.names.User(name), Arguments: args, Signature: sig,
	})
	st.calls++
}

// syntheticID makes a stable id for a call the API sent without one: the same response always
// gives its calls the same ids.
func (d *decoder) syntheticID(cand int32, n int) string {
	key := d.responseID
	if key == "" {
		if d.fallbackID == "" {
			var b [8]byte
			_, _ = rand.Read(b[:])
			d.fallbackID = hex.EncodeToString(b[:])
		}
		key = d.fallbackID
	}
	return fmt.Sprintf("%s%s-%d-%d", syntheticIDPrefix, key, cand, n)
}

func (st *candState) flushThought(g *chat.Generation) {
	if !st.hasThink {
		return
	}
	g.Message.Reasoning = append(g.Message.Reasoning, chat.Reasoning{
		Provider: providerName, Text: st.thought.String(), Signature: st.thinkSig,
	})
	st.thought.Reset()
	st.hasThink, st.thinkSig = false, ""
}

// flush adds to out what is still pending (thoughts, streamed calls) when a response or stream
// ends.
func (d *decoder) flush(out *chat.Response) *chat.Response {
	for _, st := range d.cands {
		if !st.hasThink && st.open == nil {
			continue
		}
		var g *chat.Generation
		for i := range out.Generations {
			if out.Generations[i].Index == int(st.index) {
				g = &out.Generations[i]
			}
		}
		if g == nil {
			out.Generations = append(out.Generations, chat.Generation{Index: int(st.index), Message: chat.Message{Role: chat.RoleAssistant}})
			g = &out.Generations[len(out.Generations)-1]
		}
		d.closeCall(st, g)
		st.flushThought(g)
	}
	return out
}

// complete reports whether every candidate seen has finished, or the prompt was blocked.
func (d *decoder) complete() bool {
	if d.blocked {
		return true
	}
	if len(d.cands) == 0 {
		return false
	}
	for _, c := range d.cands {
		if !c.finished {
			return false
		}
	}
	return true
}

// set applies one streamed argument piece at its JSON path; string pieces of one path are
// concatenated.
func (c *openCall) set(pa *genai.PartialArg) {
	var v any
	switch {
	case pa.NumberValue != nil:
		v = *pa.NumberValue
	case pa.BoolValue != nil:
		v = *pa.BoolValue
	case pa.NULLValue != "":
		v = nil
	default:
		v = pa.StringValue
	}
	if c.args == nil {
		c.args = map[string]any{}
	}
	path := parseJSONPath(pa.JsonPath)
	if len(path) == 0 {
		return
	}
	var parent any = c.args
	for i, seg := range path {
		last := i == len(path)-1
		switch p := parent.(type) {
		case map[string]any:
			key, _ := seg.(string)
			if last {
				p[key] = appendValue(p[key], v)
				return
			}
			if p[key] == nil {
				p[key] = emptyFor(path[i+1])
			}
			parent = p[key]
		case *[]any:
			idx, _ := seg.(int)
			for len(*p) <= idx {
				*p = append(*p, nil)
			}
			if last {
				(*p)[idx] = appendValue((*p)[idx], v)
				return
			}
			if (*p)[idx] == nil {
				(*p)[idx] = emptyFor(path[i+1])
			}
			parent = (*p)[idx]
		default:
			return // the path runs through a scalar: ignore the piece
		}
	}
}

func appendValue(old, v any) any {
	if s, ok := v.(string); ok {
		if prev, ok := old.(string); ok {
			return prev + s
		}
	}
	return v
}

// emptyFor returns a container for the next path segment: arrays are kept as *[]any while being
// built so they can grow in place, and marshal as plain arrays.
func emptyFor(next any) any {
	if _, ok := next.(int); ok {
		return &[]any{}
	}
	return map[string]any{}
}

// parseJSONPath reads the simple RFC 9535 paths the API streams: $.a.b, $['a'], $.a[0].
func parseJSONPath(p string) []any {
	p = strings.TrimPrefix(p, "$")
	var out []any
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, p[:end])
			p = p[end:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return out
			}
			tok := p[1:end]
			p = p[end+1:]
			if n, err := strconv.Atoi(tok); err == nil {
				out = append(out, n)
			} else {
				out = append(out, strings.Trim(tok, `'"`))
			}
		default:
			return out
		}
	}
	return out
}

// finishReason normalises Gemini's finish reasons; a STOP after function calls is tool_calls.
func finishReason(r genai.FinishReason, calls bool) chat.FinishReason {
	switch r {
	case genai.FinishReasonStop:
		if calls {
			return chat.FinishToolCalls
		}
		return chat.FinishStop
	case genai.FinishReasonMaxTokens:
		return chat.FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonLanguage,
		genai.FinishReasonBlocklist, genai.FinishReasonProhibitedContent, genai.FinishReasonSPII,
		genai.FinishReasonImageSafety, genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return chat.FinishContentFilter
	case genai.FinishReasonMalformedFunctionCall, genai.FinishReasonUnexpectedToolCall, genai.FinishReasonTooManyToolCalls:
		return chat.FinishError
	}
	return chat.FinishReason(r)
}

// usage maps usageMetadata. Gemini counts thoughts apart from candidates; wield's OutputTokens
// include them, with ReasoningTokens telling how many were thinking.
func usage(u *genai.GenerateContentResponseUsageMetadata) chat.Usage {
	if u == nil {
		return chat.Usage{}
	}
	return chat.Usage{
		InputTokens:       int(u.PromptTokenCount + u.ToolUsePromptTokenCount),
		OutputTokens:      int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
		TotalTokens:       int(u.TotalTokenCount),
		CachedInputTokens: int(u.CachedContentTokenCount),
		ReasoningTokens:   int(u.ThoughtsTokenCount),
	}
}

// wrapError turns the SDK's API errors into chat.ProviderError.
func wrapError(err error) error {
	var ae genai.APIError
	var pae *genai.APIError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &pae) && pae != nil:
		ae = *pae
	default:
		return fmt.Errorf("gemini: %w", err)
	}
	pe := &chat.ProviderError{Provider: providerName, StatusCode: ae.Code, Message: ae.Message, Err: err}
	if ae.Status != "" && (ae.Status[0] < '0' || ae.Status[0] > '9') {
		pe.Type = ae.Status // e.g. RESOURCE_EXHAUSTED; not the HTTP status line of a non-JSON answer
	}
	for _, d := range ae.Details {
		if reason, ok := d["reason"].(string); ok && reason != "" {
			pe.Code = reason
			break
		}
	}
	return pe
}

// retryInfoHint reads google.rpc.RetryInfo from an error body: Gemini says how long to wait in
// the body rather than in Retry-After.
func retryInfoHint(_ *http.Response, body []byte) (time.Duration, bool) {
	var e struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0, false
	}
	for _, d := range e.Error.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") && d.RetryDelay != "" {
			if wait, err := time.ParseDuration(d.RetryDelay); err == nil && wait >= 0 {
				return wait, true
			}
		}
	}
	return 0, false
}

// appendText adds a text part, joining unsigned text to an unsigned text part before it: a
// signed part stays as it came, never merged with another.
func appendText(parts []content.Part, p content.Part) []content.Part {
	if n := len(parts); n > 0 && p.Signature == "" && parts[n-1].Kind == content.KindText && parts[n-1].Signature == "" {
		parts[n-1].Text += p.Text
		return parts
	}
	return append(parts, p)
}
