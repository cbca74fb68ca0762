// Package a2a connects wield to agents over the Agent2Agent protocol (A2A), on the official Go
// SDK (github.com/a2aproject/a2a-go v0.3.3, protocol version 0.3), both ways:
//
//   - [RemoteAgent]: a remote agent becomes a [tool.Tool] whose calls are A2A tasks, and a
//     remote task that needs input stops the caller's turn as a wield interrupt that its resume
//     answers.
//   - [Server]: a client is served as an A2A agent, each task one of its turns; a turn that stops
//     for approval or an interrupt is a task in input-required, and the next message on the task
//     decides its pending calls and resumes it. Tasks are kept in a memory.TurnRepository, beside
//     the turns, so that a waiting task survives a restart.
package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/bodywatch"
	"github.com/wield-ai/wield/internal/httptimeout"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Input is the input of a remote agent's tool: the message for the agent.
type Input struct {
	Input string `json:"input" jsonschema:"the task for the agent, with everything it needs to know"`
}

// Pending is the data of the interrupt a remote agent's tool raises when the remote task stops in
// input-required or auth-required: the task to continue, what the agent asked, and, for an
// agent that describes them (a wield [Server] does), the calls it waits on.
type Pending struct {
	TaskID    string        `json:"taskId"`
	ContextID string        `json:"contextId"`
	State     string        `json:"state"`
	Question  string        `json:"question,omitempty"`
	Calls     []PendingView `json:"calls,omitempty"`
}

// Answer is the data a resume gives a remote agent's tool (toolcall's resumption data): the reply
// sent on the stopped remote task, as text, or as decisions for the calls it waits on.
type Answer struct {
	Text      string         `json:"text,omitempty"`
	Decisions []CallDecision `json:"decisions,omitempty"`
	// Credentials answer a task in auth-required: the credentials its calls need, by name (a
	// wield agent's Pending.Calls name them), sent in a data part {"credentials": {...}}.
	Credentials map[string]string `json:"credentials,omitempty"`
}

// Auth holds the credentials a remote agent's tool sends. When the agent's card declares
// security schemes, the first requirement these credentials meet decides where they go (a
// bearer token for http bearer, OAuth 2 and OpenID Connect schemes; an API key in the header an
// apiKey scheme names); a card that declares none gets the bearer token, or the API key in
// APIKeyHeader.
type Auth struct {
	BearerToken string
	APIKey      string
	// APIKeyHeader is the API key's header when the card names none; "X-API-Key" when empty.
	APIKeyHeader string
	// ClientID and ClientSecret are OAuth 2 client credentials, for an agent whose card declares
	// an oauth2 scheme with a client-credentials flow (and no BearerToken is given): a token is
	// fetched from the flow's token URL (https, or on loopback) with
	// golang.org/x/oauth2/clientcredentials, kept, and fetched again shortly before it expires,
	// or once when the agent refuses it (401) before then, the refused request sent again once.
	ClientID, ClientSecret string
	// Scopes are the scopes asked for; nil asks for those the card's security requirement lists.
	Scopes []string
}

// Config configures a remote agent's tool. Either Card or CardURL is required.
type Config struct {
	// Card is the agent's card; when nil, CardURL is resolved.
	Card *sdk.AgentCard
	// CardURL is the agent's base URL (its card is served at /.well-known/agent-card.json).
	CardURL string
	// Name is the tool's name; the card's name (made a valid tool name) when empty. A streamed
	// turn's events from the agent are attributed to it.
	Name string
	// Description is the tool's description; the card's when empty.
	Description string
	// Auth holds the credentials to send, if the agent wants any.
	Auth *Auth
	// HTTPClient carries the requests; its transport is wrapped with the bounds below. Nil is a
	// client of its own.
	HTTPClient *http.Client
	// Timeout bounds one call of the tool (the remote task up to its answer); 5 minutes when zero.
	Timeout time.Duration
	// IdleTimeout bounds a silence of the agent, in a stream or before an answer; 2 minutes when
	// zero.
	IdleTimeout time.Duration
	// MaxResponseBytes bounds each response of the agent (a stream's whole body); 16 MiB when
	// zero.
	MaxResponseBytes int64
	// Retries is how many times a request that failed for a transient reason is tried again; 2
	// when zero, none when negative. A message is sent again only when the agent cannot have
	// taken it (the connection was refused, or it answered 429 or 503); reads and cancels are
	// retried on any transient failure, and a stream cut after its task began is followed by
	// polling the task.
	Retries int
}

// MaxAnswerBytes bounds the text a remote agent's answer may carry into the caller's turn.
const MaxAnswerBytes = 1 << 20

// RemoteAgent returns a tool whose calls send a message to the remote agent described by cfg and
// return its answer (the final message's text, or the task's status message and artifacts).
//
// An agent whose card says it streams is called with message/stream: its progress (status
// messages, artifacts, and a wield agent's tool calls) reaches the calling turn's stream
// attributed to the tool, as a local sub-agent's does ([client.AgentEvents]). Others are sent
// the message without waiting and polled. When the calling turn ends (its context is
// cancelled, or the call's Timeout passes), the remote task is cancelled.
func RemoteAgent(ctx context.Context, cfg Config) (tool.Tool, error) {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	idle := cfg.IdleTimeout
	if idle <= 0 {
		idle = 2 * time.Minute
	}
	maxBody := cfg.MaxResponseBytes
	if maxBody <= 0 {
		maxBody = 16 << 20
	}
	retries := cfg.Retries
	switch {
	case retries == 0:
		retries = 2
	case retries < 0:
		retries = 0
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient
	}
	hc.Transport = &retrier{
		base:    &bodywatch.Transport{Base: &httptimeout.Transport{Base: hc.Transport, FirstByte: timeout, Idle: idle, MaxBody: maxBody}},
		retries: retries,
	}
	card := cfg.Card
	if card == nil {
		if cfg.CardURL == "" {
			return nil, errors.New("a2a: remote agent: neither a card nor a card URL")
		}
		c, err := resolveCard(ctx, hc, cfg.CardURL, min(timeout, time.Minute))
		if err != nil {
			return nil, err
		}
		card = c
	} else if err := checkCard(card); err != nil {
		return nil, err
	}
	auth, err := newAuth(card, cfg.Auth, cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	var opts []a2aclient.FactoryOption
	if auth != nil && auth.tokens != nil {
		// A token refused before its expiry (revoked, rotated) is replaced once per request.
		rc := *hc
		rc.Transport = &reauth{base: hc.Transport, tokens: auth.tokens, tokenURL: auth.tokenURL}
		hc = &rc
	}
	opts = append(opts, a2aclient.WithJSONRPCTransport(hc))
	if auth != nil {
		opts = append(opts, a2aclient.WithInterceptors(auth))
	}
	if !card.Capabilities.Streaming {
		opts = append(opts, a2aclient.WithConfig(a2aclient.Config{Polling: true}))
	}
	c, err := a2aclient.NewFromCard(ctx, card, opts...)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent %q: %w", card.Name, err)
	}
	name := cfg.Name
	if name == "" {
		name = toolName(card.Name)
	}
	desc := cfg.Description
	if desc == "" {
		desc = card.Description
	}
	r := &remote{c: c, name: name, timeout: timeout, streaming: card.Capabilities.Streaming}
	t, err := tool.Func(name, desc, r.call)
	if err != nil {
		return nil, err
	}
	return &remoteTool{Tool: t, r: r}, nil
}

// FetchCard fetches the card of the agent at url (its base URL: the card is served at
// /.well-known/agent-card.json) within a minute, its body bounded as a remote agent's responses
// are, and checks that [RemoteAgent] could call the agent. hc carries the request; nil is a
// client of its own.
func FetchCard(ctx context.Context, url string, hc *http.Client) (*sdk.AgentCard, error) {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	c.Transport = &bodywatch.Transport{Base: &httptimeout.Transport{Base: c.Transport, FirstByte: time.Minute, Idle: time.Minute, MaxBody: 16 << 20}}
	return resolveCard(ctx, c, url, time.Minute)
}

// resolveCard fetches and checks the card at url within timeout.
func resolveCard(ctx context.Context, hc *http.Client, url string, timeout time.Duration) (*sdk.AgentCard, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	card, err := agentcard.NewResolver(hc).Resolve(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card %s: %w", url, err)
	}
	if err := checkCard(card); err != nil {
		return nil, err
	}
	return card, nil
}

// checkCard refuses a card the tool could not use, saying why.
func checkCard(card *sdk.AgentCard) error {
	if card.Name == "" {
		return errors.New("a2a: the agent card has no name")
	}
	if card.URL == "" {
		return fmt.Errorf("a2a: agent card %q has no URL", card.Name)
	}
	if _, err := urlParse(card.URL); err != nil {
		return fmt.Errorf("a2a: agent card %q: URL %q: %w", card.Name, card.URL, err)
	}
	return nil
}

// remoteTool is the tool of RemoteAgent; it keeps its remote for the package's tests.
type remoteTool struct {
	tool.Tool
	r *remote
}

type remote struct {
	c         *a2aclient.Client
	name      string
	timeout   time.Duration
	streaming bool
}

func (r *remote) call(ctx context.Context, in Input) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if res, ok := toolcall.Resumed(ctx); ok && res.Interrupt != nil {
		var p Pending
		if err := json.Unmarshal(res.Interrupt.Data, &p); err != nil || p.TaskID == "" {
			return "", fmt.Errorf("a2a: agent %s: resumed without its task: %v", r.name, err)
		}
		var a Answer
		if len(res.Data) > 0 {
			if err := json.Unmarshal(res.Data, &a); err != nil {
				return "", fmt.Errorf("a2a: agent %s: answer: %w", r.name, err)
			}
		}
		msg, err := a.message()
		if err != nil {
			return "", fmt.Errorf("a2a: agent %s: task %s: %w", r.name, p.TaskID, err)
		}
		msg.TaskID = sdk.TaskID(p.TaskID)
		msg.ContextID = p.ContextID
		return r.send(ctx, msg)
	}
	return r.send(ctx, sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: in.Input}))
}

func (a Answer) message() (*sdk.Message, error) {
	data := map[string]any{}
	if len(a.Decisions) > 0 {
		raw, err := json.Marshal(a.Decisions)
		if err != nil {
			return nil, err
		}
		var ds []any
		if err := json.Unmarshal(raw, &ds); err != nil {
			return nil, err
		}
		data["decisions"] = ds
	}
	if len(a.Credentials) > 0 {
		creds := make(map[string]any, len(a.Credentials))
		for k, v := range a.Credentials {
			creds[k] = v
		}
		data[CredentialsKey] = creds
	}
	var parts []sdk.Part
	if len(data) > 0 {
		parts = append(parts, sdk.DataPart{Data: data})
	}
	if a.Text != "" && len(a.Decisions) == 0 {
		parts = append(parts, sdk.TextPart{Text: a.Text})
	}
	if len(parts) == 0 {
		return nil, errors.New("resumed without an answer (Answer.Text, Decisions or Credentials)")
	}
	return sdk.NewMessage(sdk.MessageRoleUser, parts...), nil
}

// send sends msg to the agent and follows its task to an answer, a stop, or the end of ctx,
// which cancels the remote task.
func (r *remote) send(ctx context.Context, msg *sdk.Message) (string, error) {
	// The agent spends a share of the caller's agent tree, and a wield agent says what it spent.
	share, err := client.ShareTree(ctx)
	if err != nil {
		return "", tool.Fatal(fmt.Errorf("a2a: agent %s: %w", r.name, err))
	}
	f := &follower{r: r}
	if share != nil {
		if msg.Metadata == nil {
			msg.Metadata = map[string]any{}
		}
		msg.Metadata[MetaTree] = share.Budget
		defer func() { share.Settle(treeSpent(f.task.Metadata)) }()
	}
	ctx, f.watch = bodywatch.With(ctx)
	if send, ok := client.AgentEvents(ctx, r.name); ok {
		f.emit = send
	}
	for attempt := 0; ; attempt++ {
		if r.streaming {
			err = f.stream(ctx, msg)
		} else {
			err = f.post(ctx, msg)
		}
		// A message on a stopped task that the agent refused with an internal error is sent
		// again: the SDK's servers refuse one that comes before the task's previous run is
		// cleaned up, and a task that took it would refuse the copy, no longer waiting.
		if msg.TaskID == "" || f.task.ID != "" || !errors.Is(err, sdk.ErrInternalError) || attempt >= 4 || sleep(ctx, time.Duration(50<<attempt)*time.Millisecond) != nil {
			break
		}
	}
	if err == nil && f.answer == nil && !f.over() {
		err = f.poll(ctx)
	}
	if err != nil {
		if f.task.ID != "" && !f.over() {
			f.cancelRemote(ctx)
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("a2a: agent %s: %w", r.name, context.Cause(ctx))
		}
		return "", fmt.Errorf("a2a: agent %s: %w", r.name, err)
	}
	if f.answer != nil {
		return capText(partsText(f.answer.Parts)), nil
	}
	return r.taskAnswer(&f.task)
}

// follower follows one remote task: the task as its events built it, and what it answered.
type follower struct {
	r      *remote
	emit   func(*client.Event, string) bool
	watch  *bodywatch.Watch // why reading a response failed, which the SDK's parse errors hide
	task   sdk.Task
	answer *sdk.Message // a direct answer, without a task
	size   int          // bytes of artifacts kept
	// texted: the agent's progress carried its text, which its artifacts then repeat.
	texted bool
}

// over reports whether the task needs nothing more from the agent.
func (f *follower) over() bool {
	st := f.task.Status.State
	return st.Terminal() || st == sdk.TaskStateInputRequired || st == sdk.TaskStateAuthRequired
}

func (f *follower) stream(ctx context.Context, msg *sdk.Message) error {
	// The stream runs on a context of its own, so that a call that ends before the task's id
	// came can still learn it, for a moment, and cancel the task.
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	known := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-known:
			case <-time.After(2 * time.Second):
			}
			stop()
		case <-sctx.Done():
		}
	}()
	reported := false
	for ev, err := range f.r.c.SendStreamingMessage(sending(sctx), &sdk.MessageSendParams{Message: msg}) {
		if ctx.Err() != nil {
			if f.task.ID == "" && err == nil {
				_ = f.apply(ev)
			}
			return ctx.Err()
		}
		if err != nil {
			if we := f.watch.Err(); we != nil {
				err = we
			}
			if f.task.ID != "" && dropped(err) {
				return nil // the task began: poll it to its end
			}
			return err
		}
		hadID := f.task.ID != ""
		if err := f.apply(ev); err != nil {
			return err
		}
		if !hadID && f.task.ID != "" {
			close(known)
		}
		// Only a status the stream itself reports, or a terminal task, ends it: an agent
		// continuing a task may first send the task as it stood, still waiting for the input it
		// now has.
		switch v := ev.(type) {
		case *sdk.TaskStatusUpdateEvent:
			reported = true
		case *sdk.Task:
			reported = reported || v.Status.State.Terminal() || msg.TaskID == ""
		}
		if f.answer != nil || reported && f.over() {
			return nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// dropped reports whether a stream failed because its connection did, not for what it sent.
func dropped(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)
}

func (f *follower) post(ctx context.Context, msg *sdk.Message) error {
	res, err := f.r.c.SendMessage(sending(ctx), &sdk.MessageSendParams{Message: msg})
	if err != nil {
		if we := f.watch.Err(); we != nil {
			return we
		}
		return err
	}
	return f.apply(res)
}

// poll reads the task until it needs nothing more from the agent.
func (f *follower) poll(ctx context.Context) error {
	if f.task.ID == "" {
		return errors.New("the agent's answer is neither a message nor a task")
	}
	wait := 50 * time.Millisecond
	for !f.over() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 2*time.Second)
		t, err := f.r.c.GetTask(ctx, &sdk.TaskQueryParams{ID: f.task.ID})
		if err != nil {
			return err
		}
		if t.ID != f.task.ID {
			return fmt.Errorf("asked for task %s, the agent answered with task %s", f.task.ID, t.ID)
		}
		f.size = 0
		if err := f.apply(t); err != nil {
			return err
		}
	}
	return nil
}

// cancelRemote cancels the task on the agent, on a context of its own: the call's has ended.
func (f *follower) cancelRemote(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, _ = f.r.c.CancelTask(cctx, &sdk.TaskIDParams{ID: f.task.ID})
}

// apply takes one event of the task into the follower, sending its progress on.
func (f *follower) apply(ev sdk.Event) error {
	switch v := ev.(type) {
	case *sdk.Message:
		if f.task.ID == "" {
			f.answer = v
			return nil
		}
		f.progress(v)
	case *sdk.Task:
		if f.task.ID != "" && v.ID != f.task.ID {
			return fmt.Errorf("the agent switched from task %s to task %s", f.task.ID, v.ID)
		}
		f.task = *v
		f.size = 0
		for _, a := range v.Artifacts {
			f.size += len(partsText(a.Parts))
		}
	case *sdk.TaskStatusUpdateEvent:
		if f.task.ID == "" {
			f.task.ID, f.task.ContextID = v.TaskID, v.ContextID
		} else if v.TaskID != f.task.ID {
			return fmt.Errorf("the agent switched from task %s to task %s", f.task.ID, v.TaskID)
		}
		f.task.Status = v.Status
		if spent, ok := v.Metadata[MetaTreeSpent]; ok {
			if f.task.Metadata == nil {
				f.task.Metadata = map[string]any{}
			}
			f.task.Metadata[MetaTreeSpent] = spent
		}
		if v.Status.Message != nil && v.Status.State == sdk.TaskStateWorking {
			f.progress(v.Status.Message)
		}
	case *sdk.TaskArtifactUpdateEvent:
		if f.task.ID == "" {
			f.task.ID, f.task.ContextID = v.TaskID, v.ContextID
		}
		if v.Artifact == nil {
			return nil
		}
		text := partsText(v.Artifact.Parts)
		f.size += len(text)
		if f.size > 2*MaxAnswerBytes {
			return fmt.Errorf("the agent's artifacts are over %d bytes", 2*MaxAnswerBytes)
		}
		merged := false
		if v.Append {
			for _, a := range f.task.Artifacts {
				if a.ID == v.Artifact.ID {
					a.Parts = append(a.Parts, v.Artifact.Parts...)
					merged = true
				}
			}
		}
		if !merged {
			a := *v.Artifact
			f.task.Artifacts = append(f.task.Artifacts, &a)
		}
		if !f.texted && text != "" {
			f.send(&client.Event{Chunk: textChunk(text)}, "")
		}
	default:
		return fmt.Errorf("unexpected event %T", ev)
	}
	return nil
}

// progress sends a progress message's parts on: text as the agent's text, a wield agent's tool
// parts as tool events.
func (f *follower) progress(m *sdk.Message) {
	for _, p := range m.Parts {
		switch v := p.(type) {
		case sdk.TextPart:
			if v.Text != "" {
				f.texted = true
				inner, _ := v.Metadata["agent"].(string)
				f.send(&client.Event{Chunk: textChunk(v.Text)}, inner)
			}
		case sdk.DataPart:
			if v.Metadata[MetaKind] != "tool" {
				continue
			}
			if te, inner, ok := toolEvent(v.Data); ok {
				f.send(&client.Event{Tool: te}, inner)
			}
		}
	}
}

func (f *follower) send(ev *client.Event, inner string) {
	if f.emit != nil {
		f.emit(ev, inner)
	}
}

func textChunk(text string) *chat.Response {
	return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(text)}}}
}

// toolEvent reads a wield agent's tool progress part (see toolPart).
func toolEvent(d map[string]any) (*client.ToolEvent, string, bool) {
	str := func(k string) string { s, _ := d[k].(string); return s }
	te := &client.ToolEvent{Call: chat.ToolCall{Name: str("tool"), ID: str("callId"), Arguments: str("arguments")}}
	switch str("event") {
	case "started":
		te.Kind = client.ToolStarted
	case "finished":
		te.Kind = client.ToolFinished
		isErr, _ := d["isError"].(bool)
		te.Result = chat.ToolResult{ID: te.Call.ID, Name: te.Call.Name, Content: str("result"), IsError: isErr}
		if ms, ok := d["elapsedMs"].(float64); ok {
			te.Elapsed = time.Duration(ms) * time.Millisecond
		}
	default:
		return nil, "", false // stops are reported by the task's own state
	}
	if te.Call.Name == "" {
		return nil, "", false
	}
	return te, str("agent"), true
}

func (r *remote) taskAnswer(t *sdk.Task) (string, error) {
	var status string
	if t.Status.Message != nil {
		status = partsText(t.Status.Message.Parts)
	}
	switch t.Status.State {
	case sdk.TaskStateInputRequired, sdk.TaskStateAuthRequired:
		q := status
		if q == "" {
			q = fmt.Sprintf("agent %s needs %s", r.name, t.Status.State)
		}
		p := Pending{TaskID: string(t.ID), ContextID: t.ContextID, State: string(t.Status.State), Question: cut(status, maxShownBytes*4)}
		if t.Status.Message != nil {
			p.Calls = pendingCalls(t.Status.Message)
		}
		return "", toolcall.InterruptWith(cut(q, maxShownBytes*4), p)
	case sdk.TaskStateFailed, sdk.TaskStateRejected, sdk.TaskStateCanceled:
		return "", fmt.Errorf("a2a: agent %s: task %s %s: %s", r.name, t.ID, t.Status.State, cut(status, maxShownBytes))
	case sdk.TaskStateCompleted:
	default:
		return "", fmt.Errorf("a2a: agent %s: task %s ended in state %q", r.name, t.ID, t.Status.State)
	}
	var b strings.Builder
	for _, a := range t.Artifacts {
		if s := partsText(a.Parts); s != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(s)
		}
	}
	if b.Len() == 0 {
		b.WriteString(status)
	}
	return capText(b.String()), nil
}

// pendingCalls reads the calls a wield agent's input-required message describes.
func pendingCalls(m *sdk.Message) []PendingView {
	for _, p := range m.Parts {
		d, ok := p.(sdk.DataPart)
		if !ok || d.Data["pending"] == nil {
			continue
		}
		raw, err := json.Marshal(d.Data["pending"])
		if err != nil {
			return nil
		}
		var vs []PendingView
		if json.Unmarshal(raw, &vs) != nil || len(vs) > 1000 {
			return nil
		}
		return vs
	}
	return nil
}

func partsText(ps sdk.ContentParts) string {
	var b strings.Builder
	for _, p := range ps {
		s, ok := partText(p)
		if !ok || s == "" {
			continue
		}
		switch p.(type) {
		case sdk.DataPart, *sdk.DataPart:
			if p.Meta()[MetaKind] != nil {
				continue // a wield agent's description, read apart
			}
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s)
	}
	return b.String()
}

// partText is a text part's text, or a data part's data as JSON; false for other parts.
func partText(p sdk.Part) (string, bool) {
	var data map[string]any
	switch v := p.(type) {
	case sdk.TextPart:
		return v.Text, true
	case *sdk.TextPart:
		return v.Text, true
	case sdk.DataPart:
		data = v.Data
	case *sdk.DataPart:
		data = v.Data
	default:
		return "", false
	}
	raw, _ := json.Marshal(data)
	return string(raw), true
}

func capText(s string) string {
	if len(s) > MaxAnswerBytes {
		return cut(s, MaxAnswerBytes) + "\n[answer truncated]"
	}
	return s
}

func toolName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 {
		return "remote_agent"
	}
	return b.String()
}

// treeSpent reads what a wield agent reported its turn spent of the caller's tree; nothing when
// the agent did not say (it is not wield, or it failed before it could).
func treeSpent(md map[string]any) client.TreeSpent {
	var spent client.TreeSpent
	if v, ok := md[MetaTreeSpent]; ok {
		if raw, err := json.Marshal(v); err == nil {
			_ = json.Unmarshal(raw, &spent)
		}
	}
	return spent
}
