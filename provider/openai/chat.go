package openai

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/orderedjson"
	"github.com/wield-ai/wield/provider/internal/splice"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// ChatModel is a [chat.Model] on the Chat Completions API (POST {base URL}/chat/completions),
// the API OpenAI-compatible servers implement. It is safe for concurrent use.
type ChatModel struct {
	base
	maxTokensField string
	// mistral turns on the differences of Mistral's API (see NewMistral).
	mistral bool
}

var (
	_ chat.Model     = (*ChatModel)(nil)
	_ chat.Describer = (*ChatModel)(nil)
)

// New returns a model on the Chat Completions API. It fails only on an invalid configuration.
func New(cfg Config) (*ChatModel, error) {
	b, err := newBase(cfg)
	if err != nil {
		return nil, err
	}
	m := &ChatModel{base: b, maxTokensField: cfg.MaxTokensField, mistral: isMistral(b.baseURL)}
	if m.maxTokensField == "" {
		m.maxTokensField = "max_tokens"
		if b.isOpenAI() {
			m.maxTokensField = "max_completion_tokens"
		}
	}
	return m, nil
}

// Info names the provider and the configured model.
func (m *ChatModel) Info() chat.Info { return m.info() }

// Call sends the prompt and returns the whole answer; Response.Raw is the *openai.ChatCompletion.
func (m *ChatModel) Call(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
	return wire.PromptCall(ctx, p, func() (*chatRequest, error) { return m.request(p, false) }, m.call)
}

func (m *ChatModel) call(ctx context.Context, req *chatRequest) (*chat.Response, error) {
	ctx, f := withFailure(ctx)
	c, err := m.client.Chat.Completions.New(ctx, req.params, callOptions(ctx, req.opts)...)
	if err != nil {
		return nil, wrapError(err, f)
	}
	return chatResponse(c, req.tools, req.audioFormat), nil
}

// Stream sends the prompt and yields one Response per chunk; each Response.Raw is the
// openai.ChatCompletionChunk. The usage arrives in a final chunk without generations.
func (m *ChatModel) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return wire.PromptStream(ctx, p, func() (*chatRequest, error) { return m.request(p, true) }, m.stream)
}

// stream sends req and yields its chunks.
func (m *ChatModel) stream(ctx context.Context, req *chatRequest, yield func(*chat.Response, error) bool) {
	ctx, f := withFailure(ctx)
	s := m.client.Chat.Completions.NewStreaming(ctx, req.params, callOptions(ctx, req.opts)...)
	defer s.Close()
	st := chatStream{tools: req.tools, audioFormat: req.audioFormat, gens: map[int64]*chatGenState{}}
	for s.Next() {
		chunk := s.Current()
		if !yield(st.chunk(&chunk), nil) {
			return
		}
	}
	if err := s.Err(); err != nil {
		yield(nil, wrapError(err, f))
		return
	}
	if err := st.complete(); err != nil {
		yield(nil, err)
	}
}

// chatRequest is a prepared Chat Completions request.
type chatRequest struct {
	params oai.ChatCompletionNewParams
	opts   []option.RequestOption
	tools  toolSet
	// audioFormat is the audio output format asked for, if any.
	audioFormat string
}

func (m *ChatModel) request(p *chat.Prompt, stream bool) (*chatRequest, error) {
	s, err := m.settings(p)
	if err != nil {
		return nil, err
	}
	// Tool search is a Responses API feature.
	if err := chat.RefuseToolSearch(m.info().Provider, s.opts); err != nil {
		return nil, err
	}
	hook, err := paramsHook[oai.ChatCompletionNewParams](s.params)
	if err != nil {
		return nil, err
	}
	o := s.opts
	names := toolname.ForPrompt(toolname.OpenAI, o.Tools, p.Messages)
	wire := chatWire{names: names, reasoningField: m.cfg.ReasoningField, mistral: m.mistral}
	if m.mistral {
		if s.body, err = mistralRequest(&s); err != nil {
			return nil, err
		}
		if wire.reasoningField == "" {
			wire.reasoningField = FieldNone
		}
	}
	msgs, err := wire.messages(p.Messages)
	if err != nil {
		return nil, err
	}
	req := &chatRequest{opts: s.reqOpts}
	params := oai.ChatCompletionNewParams{Model: s.model, Messages: msgs}
	if s.temperature != nil {
		params.Temperature = oai.Float(*s.temperature)
	}
	if o.TopP != nil {
		params.TopP = oai.Float(*o.TopP)
	}
	if o.Seed != nil && !m.mistral {
		params.Seed = oai.Int(*o.Seed)
	}
	if len(o.Stop) > 0 {
		params.Stop = oai.ChatCompletionNewParamsStopUnion{OfStringArray: o.Stop}
	}
	if o.N > 1 {
		params.N = oai.Int(int64(o.N))
	}
	if s.maxTokens > 0 {
		if m.maxTokensField == "max_completion_tokens" {
			params.MaxCompletionTokens = oai.Int(int64(s.maxTokens))
		} else {
			params.MaxTokens = oai.Int(int64(s.maxTokens))
		}
	}
	if s.store != nil {
		params.Store = oai.Bool(*s.store)
	}
	if s.effort != "" {
		params.ReasoningEffort = shared.ReasoningEffort(s.effort)
	}
	req.tools, err = prepareTools(o.Tools, s.strict, names)
	if err != nil {
		return nil, err
	}
	if err := req.tools.checkChoice(o.ToolChoice); err != nil {
		return nil, err
	}
	req.tools.chatParams(&params, o, names)
	if o.ResponseFormat != nil {
		if params.ResponseFormat, err = chatResponseFormat(o.ResponseFormat); err != nil {
			return nil, err
		}
	}
	if stream && !m.cfg.DisableStreamUsage && !m.mistral {
		params.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)}
	}
	if len(s.body) > 0 {
		params.SetExtraFields(s.body)
	}
	if hook != nil {
		hook(&params)
	}
	req.params = params
	req.audioFormat = audioFormat(string(params.Audio.Format), s.body)
	return req, nil
}

// chatParams sets the tools of a Chat Completions request, with the choice and parallel calls
// that go with them.
func (ts toolSet) chatParams(params *oai.ChatCompletionNewParams, o *chat.Options, names *toolname.Map) {
	if len(ts.list) == 0 {
		return
	}
	for _, t := range ts.list {
		fn := shared.FunctionDefinitionParam{Name: t.name, Parameters: t.schema.params}
		if t.description != "" {
			fn.Description = oai.String(t.description)
		}
		if t.schema.strict {
			fn.Strict = oai.Bool(true)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	switch o.ToolChoice {
	case "":
	case "auto", "none", "required":
		params.ToolChoice = oai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: oai.String(o.ToolChoice)}
	default:
		params.ToolChoice = oai.ToolChoiceOptionFunctionToolChoice(oai.ChatCompletionNamedToolChoiceFunctionParam{Name: names.Wire(o.ToolChoice)})
	}
	if o.ParallelToolCalls != nil {
		params.ParallelToolCalls = oai.Bool(*o.ParallelToolCalls)
	}
}

// chatResponseFormat maps a structured-output request: a JSON object, or one a schema names.
func chatResponseFormat(rf *chat.ResponseFormat) (oai.ChatCompletionNewParamsResponseFormatUnion, error) {
	if len(rf.Schema) == 0 {
		return oai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}, nil
	}
	name, schema, err := responseSchema(rf)
	if err != nil {
		return oai.ChatCompletionNewParamsResponseFormatUnion{}, err
	}
	js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: schema}
	if rf.Strict {
		js.Strict = oai.Bool(true)
	}
	return oai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}}, nil
}

// chatWire says how a request's messages are written for the server.
type chatWire struct {
	// names maps tool names to wire names.
	names *toolname.Map
	// reasoningField is Config.ReasoningField.
	reasoningField string
	// mistral sends tool-call ids Mistral accepts and names tools in tool messages.
	mistral bool
}

// messages maps the conversation: one message per chat message, except tool messages, which
// become one "tool" message per result. Tool names are sent as their wire names, and an
// assistant message's reasoning from a Chat Completions server in the fields reasoningFields
// chooses.
func (w chatWire) messages(msgs []chat.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	c := chatMessages{chatWire: w, out: make([]oai.ChatCompletionMessageParamUnion, 0, len(msgs)), callName: map[string]string{}}
	if w.mistral {
		c.mids = newMistralIDs()
	}
	for i, m := range msgs {
		if m.Role != chat.RoleTool && len(c.media) > 0 {
			c.out = append(c.out, oai.UserMessage(c.media))
			c.media = nil
		}
		var err error
		switch m.Role {
		case chat.RoleSystem:
			var text string
			if text, err = textOnly(w.provider(), m.AllParts(), "a system message"); err == nil {
				c.out = append(c.out, oai.SystemMessage(text))
			}
		case chat.RoleUser:
			if len(m.Parts) == 0 {
				c.out = append(c.out, oai.UserMessage(m.Content))
				break
			}
			var parts []oai.ChatCompletionContentPartUnionParam
			if parts, err = w.chatParts(m.AllParts()); err == nil {
				c.out = append(c.out, oai.UserMessage(parts))
			}
		case chat.RoleAssistant:
			if err = c.assistant(i, m); err != nil {
				return nil, err
			}
		case chat.RoleTool:
			if len(m.ToolResults) == 0 {
				return nil, fmt.Errorf("openai: message %d: a tool message without tool results", i)
			}
			err = c.tool(m)
		default:
			return nil, fmt.Errorf("openai: message %d: unknown role %q", i, m.Role)
		}
		if err != nil {
			return nil, wire.MessageError(w.provider(), i, err)
		}
	}
	if len(c.media) > 0 {
		c.out = append(c.out, oai.UserMessage(c.media))
	}
	return c.out, nil
}

// chatMessages is the state of one mapping of a conversation.
type chatMessages struct {
	chatWire
	out      []oai.ChatCompletionMessageParamUnion
	ids      callIDs
	mids     *mistralIDs       // with Mistral, the ids sent for the conversation's call ids
	callName map[string]string // call id → tool name, for results without a name
	// media are parts a message could not carry, sent in one user message after it (after the
	// tool messages answering its calls, since nothing may come between those).
	media []oai.ChatCompletionContentPartUnionParam
}

func (c *chatMessages) wireID(id string) string {
	if c.mids != nil {
		return c.mids.id(id)
	}
	return id
}

// assistant maps the assistant message i, m; its errors name the message.
func (c *chatMessages) assistant(i int, m chat.Message) error {
	text, answerMedia, err := assistantContent(m)
	if err != nil {
		return wire.MessageError(c.provider(), i, err)
	}
	var extra map[string]any
	if len(answerMedia) > 0 {
		if c.mistral {
			// Mistral's assistant messages take content chunks, in order.
			chunks, err := c.chatParts(answerParts(m))
			if err != nil {
				return wire.MessageError(c.provider(), i, err)
			}
			extra = withField(extra, "content", chunks)
		} else {
			parts, err := c.chatParts(slices.Values(answerMedia))
			if err != nil {
				return wire.MessageError(c.provider(), i, err)
			}
			c.media = append(append(c.media, oai.TextContentPart(answerMediaIntro)), parts...)
		}
	}
	a := oai.ChatCompletionAssistantMessageParam{}
	if text != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = oai.String(text)
	}
	for _, call := range m.ToolCalls {
		id := c.ids.call(call)
		c.callName[id] = call.Name
		a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.wireID(id),
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.names.Wire(call.Name), Arguments: callArguments(call.Arguments)},
			},
		})
	}
	fields, err := reasoningFields(m.Reasoning, c.reasoningField)
	if err != nil {
		return fmt.Errorf("openai: message %d: %w", i, err)
	}
	for k, v := range fields {
		extra = withField(extra, k, v)
	}
	if len(extra) > 0 {
		a.SetExtraFields(extra)
	}
	c.out = append(c.out, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
	return nil
}

// tool maps a tool message to one "tool" message per result.
func (c *chatMessages) tool(m chat.Message) error {
	for _, r := range m.ToolResults {
		id := c.ids.result(r)
		name := cmp.Or(r.Name, c.callName[id])
		tm, resultMedia, err := c.toolMessage(r)
		if err != nil {
			return err
		}
		if len(resultMedia) > 0 {
			c.media = append(append(c.media, oai.TextContentPart(resultMediaIntro(name, id))), resultMedia...)
		}
		var extra map[string]any
		if tm.content != nil {
			extra = withField(extra, "content", tm.content)
		}
		if c.mistral && name != "" {
			extra = withField(extra, "name", c.names.Wire(name))
		}
		msg := oai.ToolMessage(tm.text, c.wireID(id))
		if len(extra) > 0 {
			msg.OfTool.SetExtraFields(extra)
		}
		c.out = append(c.out, msg)
	}
	return nil
}

// toolContent is what a tool message carries: its text, or, on Mistral, content chunks.
type toolContent struct {
	text    string
	content []oai.ChatCompletionContentPartUnionParam
}

// toolMessage maps a tool result. Tool messages of Chat Completions take text only, so a
// result's media are returned apart, to follow the tool messages in a user message, and the
// text says so. Mistral's tool messages take content chunks, and Mistral refuses a user message
// right after tool messages, so there they stay on the result.
func (w chatWire) toolMessage(r chat.ToolResult) (toolContent, []oai.ChatCompletionContentPartUnionParam, error) {
	for _, p := range r.Parts {
		if err := p.Validate(); err != nil {
			return toolContent{}, nil, err
		}
	}
	if !r.HasMedia() {
		return toolContent{text: resultText(r)}, nil, nil
	}
	var mediaParts []content.Part
	for _, p := range r.Parts {
		if _, isText := textDocument(p); p.Kind != content.KindText && !isText {
			mediaParts = append(mediaParts, p)
		}
	}
	text := resultText(chat.ToolResult{Content: r.Content, Parts: textParts(r.Parts), IsError: r.IsError})
	if len(mediaParts) == 0 {
		return toolContent{text: text}, nil, nil
	}
	media, err := w.chatParts(slices.Values(mediaParts))
	if err != nil {
		return toolContent{}, nil, err
	}
	if w.mistral {
		chunks := make([]oai.ChatCompletionContentPartUnionParam, 0, len(media)+1)
		if text != "" {
			chunks = append(chunks, oai.TextContentPart(text))
		}
		return toolContent{text: text, content: append(chunks, media...)}, nil, nil
	}
	return toolContent{text: text + "\n(The result's images and files follow in the next message.)"}, media, nil
}

// withField sets a member of a message's extra fields, making the map when it is the first.
func withField(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}

// textParts returns the text parts and text documents of parts.
func textParts(parts []content.Part) []content.Part {
	var out []content.Part
	for _, p := range parts {
		if text, ok := textDocument(p); ok {
			out = append(out, content.Text(text))
		} else if p.Kind == content.KindText {
			out = append(out, p)
		}
	}
	return out
}

// callArguments returns the arguments to send back for a call: the API wants a JSON text, and
// some providers record a call without arguments as "".
func callArguments(args string) string {
	if args == "" {
		return "{}"
	}
	return args
}

// resultText is the text the model reads for a tool result: all its text. The OpenAI APIs have
// no error flag on tool results, so a failed call's text is marked as an error in words.
func resultText(r chat.ToolResult) string {
	if r.IsError {
		return "Error: " + r.Text()
	}
	return splice.Text(r.Text())
}

// callIDs gives calls without an id (recorded from providers that have none) a synthetic one,
// and the results answering them the same, matched by name in call order.
type callIDs struct {
	n       int
	pending []pendingCall
}

type pendingCall struct{ name, id string }

func (c *callIDs) call(tc chat.ToolCall) string {
	if tc.ID != "" {
		return tc.ID
	}
	c.n++
	id := "call_" + strconv.Itoa(c.n)
	c.pending = append(c.pending, pendingCall{tc.Name, id})
	return id
}

func (c *callIDs) result(r chat.ToolResult) string {
	if r.ID != "" {
		return r.ID
	}
	for i, p := range c.pending {
		if p.name == r.Name {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return p.id
		}
	}
	if len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		return p.id
	}
	c.n++
	return "call_" + strconv.Itoa(c.n)
}

// responseSchema prepares a structured-output schema: a name (the API requires one) and, in strict
// mode, the schema rewritten like strict tool schemas.
func responseSchema(rf *chat.ResponseFormat) (string, map[string]any, error) {
	name := rf.Name
	if name == "" {
		name = "response"
	}
	o, err := orderedjson.ParseObject(rf.Schema)
	if err != nil {
		return "", nil, fmt.Errorf("openai: response format schema: %w", err)
	}
	if !rf.Strict {
		return name, o.Map(), nil
	}
	s, _, err := strictSchema(o)
	if err != nil {
		return "", nil, fmt.Errorf("openai: response format schema cannot be made strict: %w", err)
	}
	return name, s.Map(), nil
}

// chatResponse maps a completion: one generation per choice. An audio answer is an audio part,
// its transcript the text; images a compatible server returns beside the text are image parts.
func chatResponse(c *oai.ChatCompletion, tools toolSet, audioFormat string) *chat.Response {
	r := &chat.Response{ID: c.ID, Model: c.Model, Usage: chatUsage(c.Usage), Raw: c}
	for _, ch := range c.Choices {
		msg := chat.Message{Role: chat.RoleAssistant, Content: ch.Message.Content, Reasoning: messageReasoning(ch.Message.JSON.ExtraFields)}
		if text, thinking, ok := contentChunks(ch.Message.JSON.Content.Raw()); ok {
			msg.Content, msg.Reasoning = text, append(msg.Reasoning, thinking...)
		}
		if msg.Content == "" {
			msg.Content = ch.Message.Refusal
		}
		if a := ch.Message.Audio; a.Data != "" {
			if b, ok := decodeBase64(a.Data); ok && len(b) > 0 {
				if msg.Content == "" {
					msg.Content = a.Transcript
				}
				msg.Parts = append(msg.Parts, audioPart(a.ID, b, audioFormat))
			}
		}
		msg.Parts = append(msg.Parts, extraImages(ch.Message.JSON.ExtraFields)...)
		for _, tc := range ch.Message.ToolCalls {
			call := chat.ToolCall{ID: tc.ID, Index: len(msg.ToolCalls)}
			switch tc.Type {
			case "function", "":
				// Mistral leaves the type out.
				call.Name, call.Arguments = tools.call(tc.Function.Name, tc.Function.Arguments)
			case "custom":
				call.Name, call.Arguments = tools.names.User(tc.Custom.Name), tc.Custom.Input
			default:
				continue
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
		if fc := ch.Message.FunctionCall; fc.Name != "" {
			name, args := tools.call(fc.Name, fc.Arguments)
			msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{Name: name, Arguments: args, Index: len(msg.ToolCalls)})
		}
		r.Generations = append(r.Generations, chat.Generation{Index: int(ch.Index), Message: msg, FinishReason: finishReason(ch.FinishReason)})
	}
	return r
}

// chatUsage maps usage. OutputTokens include the reasoning tokens, as OpenAI counts them; xAI
// counts reasoning apart from completion_tokens (its total_tokens is prompt + completion +
// reasoning), which the totals show, and such reasoning is added to OutputTokens. Cache reads
// come from prompt_tokens_details.cached_tokens (Mistral: num_cached_tokens), cache writes from
// prompt_tokens_details.cache_write_tokens (OpenAI's and OpenRouter's).
func chatUsage(u oai.CompletionUsage) chat.Usage {
	out := chat.Usage{
		InputTokens:       int(u.PromptTokens),
		OutputTokens:      int(u.CompletionTokens),
		TotalTokens:       int(u.TotalTokens),
		CachedInputTokens: int(u.PromptTokensDetails.CachedTokens),
		ReasoningTokens:   int(u.CompletionTokensDetails.ReasoningTokens),
	}
	if out.CachedInputTokens == 0 {
		out.CachedInputTokens = numCachedTokens(u.JSON.ExtraFields) // Mistral
	}
	out.CacheWriteInputTokens = int(u.PromptTokensDetails.CacheWriteTokens)
	if r := u.CompletionTokensDetails.ReasoningTokens; r > 0 && u.TotalTokens == u.PromptTokens+u.CompletionTokens+r {
		out.OutputTokens += int(r)
	}
	return out
}

// chatStream turns chunks into responses and checks the stream ends complete.
type chatStream struct {
	tools       toolSet
	audioFormat string
	gens        map[int64]*chatGenState
}

type chatGenState struct {
	finished  bool
	reasoning reasoningStream
	// audio gathers an audio answer, and images the images beside the text, both passed on
	// with the finish reason, after the text, where a whole answer has them.
	audio  streamedAudio
	images []content.Part
	// last is the index given to the last tool call that came without one.
	last int64
	// calls maps a tool call's index to its state.
	calls map[int64]*streamCall
}

// streamCall is a tool call being streamed. The arguments of a strict tool with optional
// properties are held back until the call is complete, to drop the nulls standing for the
// properties left out.
type streamCall struct {
	index int
	name  string
	held  bool
	args  []byte
	sent  int
}

// unindexed returns the index of a tool-call delta that came without one (Mistral sends each
// call whole, without an index): a delta with an id starts a call after the others, one without
// continues the last.
func (g *chatGenState) unindexed(id string) int64 {
	if id == "" && len(g.calls) > 0 {
		return g.last
	}
	next := int64(0)
	for i := range g.calls {
		next = max(next, i+1)
	}
	g.last = next
	return next
}

func (st *chatStream) gen(i int64) *chatGenState {
	g := st.gens[i]
	if g == nil {
		g = &chatGenState{calls: map[int64]*streamCall{}}
		st.gens[i] = g
	}
	return g
}

func (st *chatStream) chunk(c *oai.ChatCompletionChunk) *chat.Response {
	r := &chat.Response{ID: c.ID, Model: c.Model, Raw: *c}
	if c.JSON.Usage.Valid() {
		r.Usage = chatUsage(c.Usage)
	}
	for _, ch := range c.Choices {
		g := st.gen(ch.Index)
		msg := chat.Message{Role: chat.RoleAssistant, Content: ch.Delta.Content}
		if msg.Content == "" {
			msg.Content = ch.Delta.Refusal
		}
		if a := ch.Delta.Audio; a.ID != "" || a.Data != "" || a.Transcript != "" {
			g.audio.add(a.ID, a.Data)
			msg.Content += a.Transcript
		}
		g.images = append(g.images, extraImages(ch.Delta.JSON.ExtraFields)...)
		msg.Reasoning = g.reasoning.delta(ch.Delta.JSON.ExtraFields)
		if text, thinking, ok := contentChunks(ch.Delta.JSON.Content.Raw()); ok {
			msg.Content = text
			for _, r := range thinking {
				msg.Reasoning = g.reasoning.plain(msg.Reasoning, r.Provider, r.Text)
			}
		}
		if msg.Content != "" || len(ch.Delta.ToolCalls) > 0 || ch.Delta.FunctionCall.Name != "" || ch.FinishReason != "" {
			msg.Reasoning = append(msg.Reasoning, g.reasoning.flush()...)
		}
		for _, tc := range ch.Delta.ToolCalls {
			index := tc.Index
			if !tc.JSON.Index.Valid() {
				index = g.unindexed(tc.ID)
			}
			if d, ok := st.callDelta(g, index, tc.ID, tc.Function.Name, tc.Function.Arguments); ok {
				msg.ToolCalls = append(msg.ToolCalls, d)
			}
		}
		if fc := ch.Delta.FunctionCall; fc.Name != "" || fc.Arguments != "" {
			// The legacy function_call has one call per message and no index.
			if d, ok := st.callDelta(g, 0, "", fc.Name, fc.Arguments); ok {
				msg.ToolCalls = append(msg.ToolCalls, d)
			}
		}
		gen := chat.Generation{Index: int(ch.Index), Message: msg}
		if ch.FinishReason != "" {
			gen.FinishReason = finishReason(ch.FinishReason)
			g.finished = true
			gen.Message.ToolCalls = append(gen.Message.ToolCalls, st.release(g)...)
			if a, ok := g.audio.part(st.audioFormat); ok {
				gen.Message.Parts = append(gen.Message.Parts, a)
			}
			gen.Message.Parts = append(gen.Message.Parts, g.images...)
			g.images = nil
		}
		r.Generations = append(r.Generations, gen)
	}
	return r
}

// callDelta records a tool-call delta and returns what to pass on.
func (st *chatStream) callDelta(g *chatGenState, index int64, id, name, args string) (chat.ToolCall, bool) {
	c := g.calls[index]
	if c == nil {
		c = &streamCall{index: int(index)}
		g.calls[index] = c
	}
	if c.name == "" && name != "" {
		c.name = name
	}
	// The name may come after the first argument fragments (the API makes every field of a
	// tool-call delta optional): until it does, the arguments are held if any tool may need
	// its nulls dropped, and passed on with the name once it turns out the call's tool does not.
	c.held = st.tools.needsCleaning(c.name) || (c.name == "" && st.tools.anyNeedsCleaning())
	d := chat.ToolCall{Index: c.index, ID: id, Name: st.tools.names.User(name)}
	if c.held {
		c.args = append(c.args, args...)
	} else {
		d.Arguments = args
		if len(c.args) > 0 {
			d.Arguments = string(c.args) + args
			c.args = nil
		}
		c.sent += len(d.Arguments)
	}
	return d, d.ID != "" || d.Name != "" || d.Arguments != ""
}

// release returns the held-back arguments of a finished generation's calls, cleaned.
func (st *chatStream) release(g *chatGenState) []chat.ToolCall {
	var out []chat.ToolCall
	for _, i := range slices.Sorted(maps.Keys(g.calls)) {
		c := g.calls[i]
		if c.held && len(c.args) > 0 {
			out = append(out, chat.ToolCall{Index: c.index, Arguments: st.tools.clean(c.name, string(c.args))})
			c.args = nil
		}
	}
	return out
}

// complete reports a stream that ended without a finish reason for every generation.
func (st *chatStream) complete() error {
	if len(st.gens) == 0 {
		return fmt.Errorf("%w: no generation arrived", ErrTruncated)
	}
	for i, g := range st.gens {
		if !g.finished {
			return fmt.Errorf("%w: generation %d has no finish reason", ErrTruncated, i)
		}
	}
	return nil
}
