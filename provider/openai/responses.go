package openai

import (
	"context"
	"encoding/base64"
	"fmt"
	"iter"
	"slices"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// ResponsesModel is a [chat.Model] on the Responses API (POST {base URL}/responses). It keeps
// reasoning items in [chat.Message.Reasoning] and sends them back on the next turn, which
// reasoning models need to continue a tool loop well. It is safe for concurrent use.
type ResponsesModel struct {
	base
}

var (
	_ chat.Model     = (*ResponsesModel)(nil)
	_ chat.Describer = (*ResponsesModel)(nil)
)

// NewResponses returns a model on the Responses API. It fails only on an invalid configuration.
func NewResponses(cfg Config) (*ResponsesModel, error) {
	b, err := newBase(cfg)
	if err != nil {
		return nil, err
	}
	return &ResponsesModel{base: b}, nil
}

// Info names the provider and the configured model.
func (m *ResponsesModel) Info() chat.Info { return m.info() }

// Call sends the prompt and returns the whole answer; Response.Raw is the *responses.Response.
// A response whose status is "failed" is returned as a *[ResponseError].
func (m *ResponsesModel) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return wire.PromptCall(ctx, p, func() (*responsesRequest, error) { return m.request(p) }, m.call)
}

func (m *ResponsesModel) call(ctx context.Context, req *responsesRequest) (*chat.Response, error) {
	ctx, f := withFailure(ctx)
	r, err := m.client.Responses.New(ctx, req.params, callOptions(ctx, req.opts)...)
	if err != nil {
		return nil, wrapError(err, f)
	}
	if r.Status == responses.ResponseStatusFailed {
		return nil, &ResponseError{Event: "response", Code: string(r.Error.Code), Message: r.Error.Message}
	}
	return responsesResponse(r, req.tools), nil
}

// Stream sends the prompt and yields one Response per event that carries something: the
// response's id and model first, then text deltas, tool calls (the call when its item is
// added, then argument fragments), reasoning items once complete, and finally the usage, the
// finish reason and the generated images. Each Response.Raw is the responses.ResponseStreamEventUnion. Events of other
// kinds (hosted tools and item types this package does not know) are skipped.
func (m *ResponsesModel) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return wire.PromptStream(ctx, p, func() (*responsesRequest, error) { return m.request(p) }, m.stream)
}

// stream sends req and yields its events.
func (m *ResponsesModel) stream(ctx context.Context, req *responsesRequest, yield func(*chat.Response, error) bool) {
	ctx, f := withFailure(ctx)
	s := m.client.Responses.NewStreaming(ctx, req.params, callOptions(ctx, req.opts)...)
	defer s.Close()
	st := responsesStream{tools: req.tools, calls: map[int64]*streamCall{}, text: map[int64]bool{}}
	for s.Next() {
		ev := s.Current()
		r, err := st.event(&ev)
		if err != nil {
			yield(nil, err)
			return
		}
		if r != nil && !yield(r, nil) {
			return
		}
	}
	if err := s.Err(); err != nil {
		yield(nil, wrapError(err, f))
		return
	}
	if !st.done {
		yield(nil, fmt.Errorf("%w: no response.completed event", ErrTruncated))
	}
}

type responsesRequest struct {
	params responses.ResponseNewParams
	opts   []option.RequestOption
	tools  toolSet
}

func (m *ResponsesModel) request(p *chat.Prompt) (*responsesRequest, error) {
	s, err := m.settings(p)
	if err != nil {
		return nil, err
	}
	hook, err := paramsHook[responses.ResponseNewParams](s.params)
	if err != nil {
		return nil, err
	}
	o := s.opts
	switch {
	case o.N > 1:
		return nil, fmt.Errorf("openai: the Responses API has one generation: %w: N", ErrUnsupported)
	case o.Seed != nil:
		return nil, fmt.Errorf("openai: the Responses API: %w: Seed", ErrUnsupported)
	case len(o.Stop) > 0:
		return nil, fmt.Errorf("openai: the Responses API: %w: Stop", ErrUnsupported)
	}
	stored := s.store == nil || *s.store
	names := toolname.ForPrompt(toolname.OpenAI, o.Tools, p.Messages)
	input, err := responsesInput(p.Messages, stored, names)
	if err != nil {
		return nil, err
	}
	req := &responsesRequest{opts: s.reqOpts}
	params := responses.ResponseNewParams{
		Model: s.model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
	}
	if s.temperature != nil {
		params.Temperature = oai.Float(*s.temperature)
	}
	if o.TopP != nil {
		params.TopP = oai.Float(*o.TopP)
	}
	if s.maxTokens > 0 {
		params.MaxOutputTokens = oai.Int(int64(s.maxTokens))
	}
	if s.store != nil {
		params.Store = oai.Bool(*s.store)
	}
	if err := m.reasoning(&params, &s, stored); err != nil {
		return nil, err
	}
	req.tools, err = prepareTools(o.Tools, s.strict, names)
	if err != nil {
		return nil, err
	}
	if err := req.tools.checkChoice(o.ToolChoice); err != nil {
		return nil, err
	}
	req.tools.responsesParams(&params, o, names)
	if err := responsesToolSearch(&params, p, o, &req.tools); err != nil {
		return nil, err
	}
	if err := compaction(&params, o); err != nil {
		return nil, err
	}
	if o.ResponseFormat != nil {
		if params.Text.Format, err = responsesFormat(o.ResponseFormat); err != nil {
			return nil, err
		}
	}
	if len(s.body) > 0 {
		params.SetExtraFields(s.body)
	}
	if hook != nil {
		hook(&params)
	}
	req.params = params
	return req, nil
}

// reasoning sets what a request asks of reasoning: its effort and summary, and the encrypted
// reasoning content, included by default when responses are not stored, since the API cannot
// look up the items of an unstored response on the next turn.
func (m *ResponsesModel) reasoning(params *responses.ResponseNewParams, s *callSettings, stored bool) error {
	encrypted := !stored
	if m.cfg.EncryptedReasoning != nil {
		encrypted = *m.cfg.EncryptedReasoning
	}
	if encrypted {
		params.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	if s.effort != "" {
		params.Reasoning.Effort = shared.ReasoningEffort(s.effort)
	}
	r := &extraReader{o: s.opts}
	if v, ok := readExtra[string](r, ExtraReasoningSummary); ok {
		params.Reasoning.Summary = shared.ReasoningSummary(v)
	}
	return r.err
}

// responsesParams sets the function tools of a Responses API request, with the choice and
// parallel calls that go with them.
func (ts toolSet) responsesParams(params *responses.ResponseNewParams, o *chat.Options, names *toolname.Map) {
	if len(ts.list) == 0 {
		return
	}
	for _, t := range ts.list {
		fn := &responses.FunctionToolParam{Name: t.name, Parameters: t.schema.params, Strict: oai.Bool(t.schema.strict)}
		if t.description != "" {
			fn.Description = oai.String(t.description)
		}
		params.Tools = append(params.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	switch o.ToolChoice {
	case "":
	case "auto", "none", "required":
		params.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptions(o.ToolChoice))}
	default:
		params.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: names.Wire(o.ToolChoice)}}
	}
	if o.ParallelToolCalls != nil {
		params.ParallelToolCalls = oai.Bool(*o.ParallelToolCalls)
	}
}

// responsesFormat maps a structured-output request: a JSON object, or one a schema names.
func responsesFormat(rf *chat.ResponseFormat) (responses.ResponseFormatTextConfigUnionParam, error) {
	if len(rf.Schema) == 0 {
		return responses.ResponseFormatTextConfigUnionParam{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}, nil
	}
	name, schema, err := responseSchema(rf)
	if err != nil {
		return responses.ResponseFormatTextConfigUnionParam{}, err
	}
	js := &responses.ResponseFormatTextJSONSchemaConfigParam{Name: name, Schema: schema}
	if rf.Strict {
		js.Strict = oai.Bool(true)
	}
	return responses.ResponseFormatTextConfigUnionParam{OfJSONSchema: js}, nil
}

// responsesInput maps the conversation to input items: system and user messages as messages,
// an assistant message as its reasoning items, its text and one function_call item per call,
// and a tool message as one function_call_output item per result.
//
// Reasoning items are sent back only with the calls they led to (the API needs them to continue a
// tool loop and drops earlier ones anyway), only OpenAI's, and, when responses are not stored,
// only those with encrypted content, since the API cannot look the others up. Function calls
// sent after reasoning carry their item id, which links them to it. Tool names are sent as their
// wire names.
func responsesInput(msgs []chat.Message, stored bool, names *toolname.Map) (responses.ResponseInputParam, error) {
	out := make(responses.ResponseInputParam, 0, len(msgs))
	// media are parts an assistant message could not carry, sent in one user message after it
	// (after the outputs of its calls, since nothing may come between those).
	var media responses.ResponseInputMessageContentListParam
	for i, m := range msgs {
		if m.Role != chat.RoleTool && len(media) > 0 {
			out = append(out, responses.ResponseInputItemParamOfMessage(media, responses.EasyInputMessageRoleUser))
			media = nil
		}
		compacted, m, err := compactionItems(m)
		if err != nil {
			return nil, wire.MessageError(Provider, i, err)
		}
		out = append(out, compacted...)
		if len(compacted) > 0 && m.Role == chat.RoleUser {
			continue // the compactor's note of the item, which stands in its place
		}
		switch m.Role {
		case chat.RoleSystem:
			text, err := textOnly(Provider, m.AllParts(), "a system message")
			if err != nil {
				return nil, wire.MessageError(Provider, i, err)
			}
			out = append(out, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleSystem))
		case chat.RoleUser:
			if len(m.Parts) == 0 {
				out = append(out, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleUser))
				break
			}
			parts, err := responsesContent(m.AllParts())
			if err != nil {
				return nil, wire.MessageError(Provider, i, err)
			}
			out = append(out, responses.ResponseInputItemParamOfMessage(parts, responses.EasyInputMessageRoleUser))
		case chat.RoleAssistant:
			var links map[string]string
			if len(m.ToolCalls) > 0 {
				var items []responses.ResponseInputItemUnionParam
				items, links = reasoningItems(m.Reasoning, stored)
				if len(items) == 0 {
					links = nil
				}
				out = append(out, items...)
			}
			items, err := serverItems(m)
			if err != nil {
				return nil, wire.MessageError(Provider, i, err)
			}
			out = append(out, items...)
			text, answerMedia, err := assistantContent(m)
			if err != nil {
				return nil, wire.MessageError(Provider, i, err)
			}
			generated, others := generatedImages(answerMedia)
			out = append(out, generated...)
			if len(others) > 0 {
				parts, err := responsesContent(slices.Values(others))
				if err != nil {
					return nil, wire.MessageError(Provider, i, err)
				}
				media = append(append(media, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: answerMediaIntro}}), parts...)
			}
			if text != "" {
				out = append(out, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				fc := &responses.ResponseFunctionToolCallParam{CallID: c.ID, Name: names.Wire(c.Name), Arguments: callArguments(c.Arguments)}
				if id := links[c.ID]; id != "" {
					fc.ID = oai.String(id)
				}
				out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCall: fc})
			}
		case chat.RoleTool:
			if len(m.ToolResults) == 0 {
				return nil, fmt.Errorf("openai: message %d: a tool message without tool results", i)
			}
			for _, r := range m.ToolResults {
				if r.ID == "" {
					return nil, fmt.Errorf("openai: message %d: a tool result for %q without the call's id", i, r.Name)
				}
				output, err := functionOutput(r)
				if err != nil {
					return nil, wire.MessageError(Provider, i, err)
				}
				out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
					CallID: oai.String(r.ID), Output: output}})
			}
		default:
			return nil, fmt.Errorf("openai: message %d: unknown role %q", i, m.Role)
		}
	}
	if len(media) > 0 {
		out = append(out, responses.ResponseInputItemParamOfMessage(media, responses.EasyInputMessageRoleUser))
	}
	return out, nil
}

// generatedImages returns the images of an answer that the image_generation tool made (their
// item id in Signature) as image_generation_call items, which is how the API takes them back,
// and the other media.
func generatedImages(media []content.Part) (items []responses.ResponseInputItemUnionParam, others []content.Part) {
	for _, p := range media {
		if p.Kind != content.KindImage || len(p.Data) == 0 || !strings.HasPrefix(p.Signature, imageIDPrefix) {
			others = append(others, p)
			continue
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfImageGenerationCall: &responses.ResponseInputItemImageGenerationCallParam{
			ID: p.Signature, Status: "completed", Result: oai.String(base64.StdEncoding.EncodeToString(p.Data))}})
	}
	return items, others
}

// reasoningItems rebuilds reasoning items from the entries [reasoningEntries] made: consecutive
// entries with one id are one item, their texts its summary parts. It also returns the item ids
// of the function calls, by call id, from the entries [callLink] made.
func reasoningItems(rs []chat.Reasoning, stored bool) ([]responses.ResponseInputItemUnionParam, map[string]string) {
	var out []responses.ResponseInputItemUnionParam
	var cur *responses.ResponseReasoningItemParam
	links := map[string]string{}
	for _, r := range rs {
		if r.Provider != Provider || r.ID == "" {
			continue
		}
		if r.Signature != "" {
			links[r.Signature] = r.ID
			continue
		}
		if cur == nil || cur.ID != r.ID {
			cur = &responses.ResponseReasoningItemParam{ID: r.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}}
			out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: cur})
		}
		if r.Text != "" {
			cur.Summary = append(cur.Summary, responses.ResponseReasoningItemSummaryParam{Text: r.Text})
		}
		if r.Encrypted != "" && !cur.EncryptedContent.Valid() {
			cur.EncryptedContent = oai.String(r.Encrypted)
		}
	}
	if stored {
		return out, links
	}
	kept := out[:0]
	for _, item := range out {
		if item.OfReasoning.EncryptedContent.Valid() {
			kept = append(kept, item)
		}
	}
	return kept, links
}

// callLink records, among the reasoning entries, the item id of a function call that followed
// reasoning: the API links the call to that reasoning by it. It is kept there rather than in
// [chat.ToolCall.Signature] because reasoning entries carry their provider, so other providers
// drop them, while a call's signature would reach them.
func callLink(itemID, callID string) chat.Reasoning {
	return chat.Reasoning{Provider: Provider, ID: itemID, Signature: callID}
}

// reasoningEntries keeps a reasoning item as chat entries: one per summary part (one without
// text when there is no summary), each with the item's id, the first with its encrypted content.
func reasoningEntries(id, encrypted string, summary []responses.ResponseReasoningItemSummary) []chat.Reasoning {
	if len(summary) == 0 {
		return []chat.Reasoning{{Provider: Provider, ID: id, Encrypted: encrypted}}
	}
	out := make([]chat.Reasoning, len(summary))
	for i, s := range summary {
		out[i] = chat.Reasoning{Provider: Provider, ID: id, Text: s.Text}
	}
	out[0].Encrypted = encrypted
	return out
}

// responsesResponse maps a response: one generation with the text of every message item, the
// function calls, the reasoning items, and the images of image_generation_call items as image
// parts after the text. Output items of other types are skipped.
func responsesResponse(r *responses.Response, tools toolSet) *chat.Response {
	out := &chat.Response{ID: r.ID, Model: string(r.Model), Usage: responsesUsage(r.Usage), Raw: r}
	msg := chat.Message{Role: chat.RoleAssistant}
	var text strings.Builder
	hasReasoning := false
	for _, item := range r.Output {
		if item.Type == "reasoning" {
			hasReasoning = true
		}
	}
	for _, item := range r.Output {
		switch item.Type {
		case "message":
			for _, c := range item.Content {
				switch c.Type {
				case "output_text":
					text.WriteString(c.Text)
				case "refusal":
					text.WriteString(c.Refusal)
				}
			}
		case "function_call":
			name, args := tools.call(item.Name, item.Arguments.OfString)
			msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{ID: item.CallID, Name: name, Index: len(msg.ToolCalls), Arguments: args})
			if hasReasoning && item.ID != "" {
				msg.Reasoning = append(msg.Reasoning, callLink(item.ID, item.CallID))
			}
		case "reasoning":
			msg.Reasoning = append(msg.Reasoning, reasoningEntries(item.ID, item.EncryptedContent, item.Summary)...)
		case "image_generation_call":
			if p, ok := generatedImage(item.ID, item.Result, item.OutputFormat); ok {
				msg.Parts = append(msg.Parts, p)
			}
		case "compaction":
			msg.ServerTools = append(msg.ServerTools, compactionOutput(item.ID, item.RawJSON()))
		case "tool_search_call", "tool_search_output":
			call, step := searchStep(item.RawJSON(), tools, len(msg.ToolCalls))
			if call != nil {
				msg.ToolCalls = append(msg.ToolCalls, *call)
				if hasReasoning && item.ID != "" {
					msg.Reasoning = append(msg.Reasoning, callLink(item.ID, item.CallID))
				}
			} else {
				msg.ServerTools = append(msg.ServerTools, *step)
				if !step.Result {
					out.Usage.ServerToolCalls++
				}
			}
		}
	}
	msg.Content = text.String()
	out.Generations = []chat.Generation{{Message: msg, FinishReason: responsesFinish(r, len(msg.ToolCalls) > 0)}}
	return out
}

// responsesFinish derives a finish reason: the Responses API has a status instead.
func responsesFinish(r *responses.Response, calls bool) chat.FinishReason {
	switch r.Status {
	case responses.ResponseStatusIncomplete:
		if r.IncompleteDetails.Reason == "" {
			return chat.FinishLength
		}
		return finishReason(r.IncompleteDetails.Reason)
	case responses.ResponseStatusCompleted, "":
		if calls {
			return chat.FinishToolCalls
		}
		return chat.FinishStop
	}
	return chat.FinishReason(r.Status)
}

func responsesUsage(u responses.ResponseUsage) chat.Usage {
	return chat.Usage{
		InputTokens:           int(u.InputTokens),
		OutputTokens:          int(u.OutputTokens),
		TotalTokens:           int(u.TotalTokens),
		CachedInputTokens:     int(u.InputTokensDetails.CachedTokens),
		CacheWriteInputTokens: int(u.InputTokensDetails.CacheWriteTokens),
		ReasoningTokens:       int(u.OutputTokensDetails.ReasoningTokens),
	}
}

// responsesStream turns stream events into responses.
type responsesStream struct {
	tools toolSet
	// calls maps an output index to its function call.
	calls     map[int64]*streamCall
	ncalls    int
	reasoning bool
	// text records the output indexes whose text arrived as deltas.
	text map[int64]bool
	// images holds generated images until the response completes, to come after the text as in
	// a whole response.
	images []content.Part
	// searches counts the hosted tool searches.
	searches int
	done     bool
}

func (st *responsesStream) event(ev *responses.ResponseStreamEventUnion) (*chat.Response, error) {
	switch ev.Type {
	case "response.created", "response.in_progress", "response.queued":
		return &chat.Response{ID: ev.Response.ID, Model: string(ev.Response.Model), Raw: *ev}, nil
	case "response.output_item.added":
		return st.itemAdded(ev), nil
	case "response.function_call_arguments.delta":
		return st.argumentsDelta(ev), nil
	case "response.output_item.done":
		return st.itemDone(ev), nil
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta == "" {
			return nil, nil
		}
		st.text[ev.OutputIndex] = true
		return eventDelta(ev, chat.Message{Content: ev.Delta}), nil
	case "response.completed", "response.incomplete":
		st.done = true
		r := &ev.Response
		u := responsesUsage(r.Usage)
		u.ServerToolCalls = st.searches
		return &chat.Response{ID: r.ID, Model: string(r.Model), Usage: u, Raw: *ev,
			Generations: []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant, Parts: st.images}, FinishReason: responsesFinish(r, st.ncalls > 0)}}}, nil
	case "response.failed":
		st.done = true
		return nil, &ResponseError{Event: ev.Type, Code: string(ev.Response.Error.Code), Message: ev.Response.Error.Message}
	case "error":
		st.done = true
		return nil, &ResponseError{Event: ev.Type, Code: ev.Code, Param: ev.Param, Message: ev.Message}
	}
	return nil, nil
}

// eventDelta is the assistant's delta msg, carrying the event it came from as Raw.
func eventDelta(ev *responses.ResponseStreamEventUnion, msg chat.Message) *chat.Response {
	msg.Role = chat.RoleAssistant
	return &chat.Response{Generations: []chat.Generation{{Message: msg}}, Raw: *ev}
}

// itemAdded starts an output item: a function call is announced with its id and name (and its
// arguments when they came with it), a reasoning item marks the calls after it for linking.
func (st *responsesStream) itemAdded(ev *responses.ResponseStreamEventUnion) *chat.Response {
	switch ev.Item.Type {
	case "reasoning":
		st.reasoning = true
	case "function_call":
		c := st.call(ev.OutputIndex, ev.Item.Name)
		d := chat.ToolCall{Index: c.index, ID: ev.Item.CallID, Name: st.tools.names.User(ev.Item.Name)}
		if args := ev.Item.Arguments.OfString; args != "" && !c.held {
			d.Arguments = args
			c.sent += len(args)
		} else if c.held {
			c.args = append(c.args, args...)
		}
		return eventDelta(ev, chat.Message{ToolCalls: []chat.ToolCall{d}, Reasoning: st.link(ev)})
	}
	return nil
}

// argumentsDelta passes a piece of a call's arguments on, or holds it while the call's arguments
// need cleaning once whole.
func (st *responsesStream) argumentsDelta(ev *responses.ResponseStreamEventUnion) *chat.Response {
	c := st.calls[ev.OutputIndex]
	if c == nil || ev.Delta == "" {
		return nil
	}
	if c.held {
		c.args = append(c.args, ev.Delta...)
		return nil
	}
	c.sent += len(ev.Delta)
	return eventDelta(ev, chat.Message{ToolCalls: []chat.ToolCall{{Index: c.index, Arguments: ev.Delta}}})
}

// itemDone maps a finished output item: what of a function call was not yet passed on, and the
// items that come whole (reasoning, generated images, compaction, tool search, a message whose
// text came without deltas).
func (st *responsesStream) itemDone(ev *responses.ResponseStreamEventUnion) *chat.Response {
	switch ev.Item.Type {
	case "function_call":
		return st.callDone(ev)
	case "reasoning":
		st.reasoning = true
		return eventDelta(ev, chat.Message{Reasoning: reasoningEntries(ev.Item.ID, ev.Item.EncryptedContent, ev.Item.Summary)})
	case "image_generation_call":
		if p, ok := generatedImage(ev.Item.ID, ev.Item.Result, ev.Item.OutputFormat); ok {
			st.images = append(st.images, p)
		}
	case "compaction":
		return eventDelta(ev, chat.Message{ServerTools: []chat.ServerTool{compactionOutput(ev.Item.ID, ev.Item.RawJSON())}})
	case "tool_search_call", "tool_search_output":
		call, step := searchStep(ev.Item.RawJSON(), st.tools, st.ncalls)
		if call != nil {
			st.ncalls++
			return eventDelta(ev, chat.Message{ToolCalls: []chat.ToolCall{*call}, Reasoning: st.link(ev)})
		}
		if !step.Result {
			st.searches++
		}
		return eventDelta(ev, chat.Message{ServerTools: []chat.ServerTool{*step}})
	case "message":
		if st.text[ev.OutputIndex] {
			return nil
		}
		var text strings.Builder
		for _, c := range ev.Item.Content {
			text.WriteString(c.Text)
			text.WriteString(c.Refusal)
		}
		if text.Len() > 0 {
			return eventDelta(ev, chat.Message{Content: text.String()})
		}
	}
	return nil
}

// callDone finishes a function call: whole when it was not announced, its cleaned arguments
// when they were held, or its arguments when no delta carried them.
func (st *responsesStream) callDone(ev *responses.ResponseStreamEventUnion) *chat.Response {
	c := st.calls[ev.OutputIndex]
	full := ev.Item.Arguments.OfString
	if c == nil {
		// Announced only now: pass the call on whole.
		c = st.call(ev.OutputIndex, ev.Item.Name)
		name, args := st.tools.call(ev.Item.Name, full)
		d := chat.ToolCall{Index: c.index, ID: ev.Item.CallID, Name: name, Arguments: args}
		return eventDelta(ev, chat.Message{ToolCalls: []chat.ToolCall{d}, Reasoning: st.link(ev)})
	}
	if c.held {
		c.held = false
		return eventDelta(ev, chat.Message{ToolCalls: []chat.ToolCall{{Index: c.index, Arguments: st.tools.clean(c.name, full)}}})
	}
	if c.sent == 0 && full != "" {
		c.sent = len(full)
		return eventDelta(ev, chat.Message{ToolCalls: []chat.ToolCall{{Index: c.index, Arguments: full}}})
	}
	return nil
}

// link returns the entry linking a function call to its item id when reasoning came before it.
func (st *responsesStream) link(ev *responses.ResponseStreamEventUnion) []chat.Reasoning {
	if !st.reasoning || ev.Item.ID == "" {
		return nil
	}
	return []chat.Reasoning{callLink(ev.Item.ID, ev.Item.CallID)}
}

// call registers the function call at an output index, numbering calls in arrival order.
func (st *responsesStream) call(outputIndex int64, name string) *streamCall {
	c := &streamCall{index: st.ncalls, name: name, held: st.tools.needsCleaning(name)}
	st.ncalls++
	st.calls[outputIndex] = c
	return c
}
