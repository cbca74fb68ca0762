package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/toolcall"
)

// The ids of the questions a server asks for its own tools' sake, apart from the numbered ones of
// Elicit and Sample.
const (
	approvalID  = "wield-approval"
	interruptID = "wield-interrupt"
)

// maxServedState bounds the state a served call hands its client to bring back (an interrupt
// with its data): a client is not made to carry more, and an interrupt over it is reported as the
// tool's error, as it is to a client that cannot elicit.
const maxServedState = 256 << 10

// answerSchema is the form a plain interrupt asks with: one line of text.
var answerSchema = json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string","title":"Answer"}},"required":["answer"]}`)

// approvalSchema is the form of an approval: nothing to fill in; accepting approves.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// servedState is what a served call that stopped to ask carries across the client's retry:
// which call it was (tool and a digest of its arguments), whether its approval was given, and the
// tool's interrupt. It travels as the result's requestState, sealed with the server's key so that
// a client can neither forge an interrupt nor move one to another call.
type servedState struct {
	Tool      string                   `json:"tool"`
	Args      []byte                   `json:"args"` // SHA-256 of the arguments
	Approved  bool                     `json:"approved,omitempty"`
	Interrupt *toolcall.InterruptError `json:"interrupt,omitempty"`
}

// newStateKey returns a fresh key for sealing served states; states do not outlive the server.
func newStateKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

func (s *Server) seal(st *servedState) (string, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(data)
	out := base64.RawURLEncoding.EncodeToString(data) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	if len(out) > maxServedState {
		return "", fmt.Errorf("the call's state is %d bytes, over the limit of %d", len(out), maxServedState)
	}
	return out, nil
}

// errBadState is a request state this server did not give for this call.
var errBadState = errors.New("the request's state was not given by this server for this call")

func (s *Server) open(state, tool string, args []byte) (*servedState, error) {
	if len(state) > maxServedState*2 {
		return nil, errBadState
	}
	body, sig, ok := strings.Cut(state, ".")
	if !ok {
		return nil, errBadState
	}
	data, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, errBadState
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(data)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil, errBadState
	}
	var st servedState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, errBadState
	}
	sum := sha256.Sum256(args)
	if st.Tool != tool || !hmac.Equal(st.Args, sum[:]) {
		return nil, errBadState
	}
	return &st, nil
}

// canElicitForm reports whether the client of req takes form elicitation.
func canElicitForm(req *sdk.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // neither set means form, as the spec says
}

// elicitAnswer is the client's answer to the question id, or nil.
func elicitAnswer(req *sdk.CallToolRequest, id string) *sdk.ElicitResult {
	if req.Params == nil {
		return nil
	}
	a, _ := req.Params.InputResponses[id].(*sdk.ElicitResult)
	return a
}

// askApproval is the question of a call that needs approval.
func askApproval(name string, args []byte) *sdk.ElicitParams {
	shown := string(args)
	if len(shown) > 2000 {
		shown = truncate(shown, 2000)
	}
	return &sdk.ElicitParams{Mode: "form", Message: fmt.Sprintf("Allow the tool %s to run with %s?", name, shown), RequestedSchema: approvalSchema}
}

// askInterrupt is the question of a tool's interrupt: the server's own question and schema when
// the interrupt carries a proxied server's [Elicitation], else one line of text.
func askInterrupt(in *toolcall.InterruptError) (*sdk.ElicitParams, bool) {
	var e Elicitation
	if len(in.Data) > 0 && json.Unmarshal(in.Data, &e) == nil && e.Message != "" && e.Server != "" {
		if e.Mode == "url" {
			return &sdk.ElicitParams{Mode: "url", Message: e.Message, URL: e.URL, ElicitationID: "wield-" + e.Server}, true
		}
		if len(e.RequestedSchema) > 0 {
			if _, err := requestedSchema(e.RequestedSchema); err == nil {
				return &sdk.ElicitParams{Mode: "form", Message: e.Message, RequestedSchema: e.RequestedSchema}, true
			}
		}
	}
	return &sdk.ElicitParams{Mode: "form", Message: in.Message, RequestedSchema: answerSchema}, false
}

// resumption turns the client's answer to an interrupt into the tool's resumption data: a
// proxied server's question gets the whole answer ([ElicitationAnswer]); a plain one the text.
// ok is false for a declined or cancelled plain question, which the call does not go on from.
func resumption(in *toolcall.InterruptError, a *sdk.ElicitResult) (data json.RawMessage, ok bool, err error) {
	if _, proxied := askInterrupt(in); proxied {
		data, err := json.Marshal(ElicitationAnswer{Action: a.Action, Content: a.Content})
		return data, true, err
	}
	if a.Action != "accept" {
		return nil, false, nil
	}
	text, isText := a.Content["answer"].(string)
	if !isText {
		return nil, false, errors.New(`the answer has no text "answer"`)
	}
	data, err = json.Marshal(text)
	return data, true, err
}

// maxServedInterrupts bounds the questions one call of a client that cannot take them by result
// (before protocol 2026-07-28) is asked directly: a tool that interrupts on every answer must not
// hold the call for ever.
const maxServedInterrupts = 16

// supportsMultiRoundTrip reports whether the client of req takes questions by result (protocol
// 2026-07-28); an older one is asked directly.
func supportsMultiRoundTrip(req *sdk.CallToolRequest) bool {
	ip := req.Session.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= "2026-07-28"
}

// declined is the result of a call whose question the client's user declined or cancelled.
func declined(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// serveAsking serves a call from a client that takes elicitation: a tool that needs approval asks
// for it first, and a tool's interrupt becomes a question whose answer the tool is run again with
// ([toolcall.Resumed]). A client of protocol 2026-07-28 is asked by result, the call's state
// sealed in the result's requestState; an older one is asked directly.
func (h *handler) serveAsking(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
	mrtr := supportsMultiRoundTrip(req)
	var st *servedState
	if req.Params != nil && req.Params.RequestState != "" {
		var err error
		if st, err = h.srv.open(req.Params.RequestState, h.name, args); err != nil {
			h.srv.logger.WarnContext(ctx, "mcp: refused a call's request state", "tool", h.name)
			return h.fail(ctx, err)
		}
	}
	sum := sha256.Sum256(args)
	approved := st != nil && st.Approved
	if h.tool.Metadata().RequiresApproval && !approved {
		q := askApproval(h.name, args)
		a := elicitAnswer(req, approvalID)
		if a == nil && mrtr {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{approvalID: q}}, nil
		}
		if a == nil {
			var err error
			if a, err = req.Session.Elicit(ctx, q); err != nil {
				return h.fail(ctx, fmt.Errorf("asking the client's user for approval: %w", err))
			}
		}
		if a.Action != "accept" {
			return declined(fmt.Sprintf("The user did not approve this call of %s (%s); it did not run.", h.name, a.Action)), nil
		}
		approved = true
	}
	var pending *toolcall.InterruptError
	var answer *sdk.ElicitResult
	if st != nil && st.Interrupt != nil {
		pending, answer = st.Interrupt, elicitAnswer(req, interruptID)
		if answer == nil { // brought back without its answer: ask again
			q, _ := askInterrupt(pending)
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{interruptID: q}, RequestState: req.Params.RequestState}, nil
		}
	}
	for round := 0; ; round++ {
		rctx := context.WithValue(ctx, askKey{}, &askState{}) // each run numbers its questions afresh
		if pending != nil {
			data, ok, err := resumption(pending, answer)
			if err != nil {
				return h.fail(ctx, err)
			}
			if !ok {
				return declined(fmt.Sprintf("The user did not answer the tool's question %q (%s); the call did not go on.", truncate(pending.Message, 200), answer.Action)), nil
			}
			rctx = toolcall.WithResumption(rctx, &toolcall.Resumption{Interrupt: pending, Data: data})
		}
		res, err := h.run(rctx, args)
		in, interrupted := errors.AsType[*toolcall.InterruptError](err)
		if !interrupted || ctx.Err() != nil {
			if ni := (*needInput)(nil); errors.As(err, &ni) && approved && ctx.Err() == nil {
				// The tool's own question: the approval given holds when the call comes back.
				if state, serr := h.srv.seal(&servedState{Tool: h.name, Args: sum[:], Approved: true}); serr == nil {
					return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{ni.id: ni.request}, RequestState: state}, nil
				}
			}
			if err != nil {
				return h.fail(ctx, err)
			}
			return res, nil
		}
		q, _ := askInterrupt(in)
		if mrtr {
			state, serr := h.srv.seal(&servedState{Tool: h.name, Args: sum[:], Approved: approved, Interrupt: in})
			if serr != nil {
				h.srv.logger.WarnContext(ctx, "mcp: an interrupt too large to ask the client", "tool", h.name, "error", serr)
				return h.fail(ctx, err)
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{interruptID: q}, RequestState: state}, nil
		}
		if round >= maxServedInterrupts {
			return h.fail(ctx, fmt.Errorf("the tool asked %d questions in one call; giving up: %w", round+1, err))
		}
		if answer, err = req.Session.Elicit(ctx, q); err != nil {
			return h.fail(ctx, fmt.Errorf("asking the client's user: %w", err))
		}
		pending = in
	}
}
