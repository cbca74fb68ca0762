package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNoClient is the error of [Elicit] or [Sample] called outside a served tool's call: there is
// no client to ask.
var ErrNoClient = errors.New("mcp: no MCP client to ask: not inside a served tool's call")

type askKey struct{}

// askState numbers the questions of one run of a served call, so that a run made again with the
// answers finds each answer under the question's number.
type askState struct{ n int }

// needInput stops a served call that asked a question not yet answered; the server turns it into
// an input-required result (MCP 2026-07-28's multi-round-trip requests), which the SDK asks an
// older client directly before running the call again with the answer.
type needInput struct {
	id      string
	request sdk.InputRequest
}

func (e *needInput) Error() string { return "mcp: the call waits for the client's answer" }

// ask returns the answer to the next question of the call in ctx, or a *needInput that stops the
// call until the client has answered it.
func ask(ctx context.Context, request sdk.InputRequest) (sdk.InputResponse, error) {
	req := RequestFrom(ctx)
	st, _ := ctx.Value(askKey{}).(*askState)
	if req == nil || req.Session == nil || st == nil {
		return nil, ErrNoClient
	}
	st.n++
	id := "wield-" + strconv.Itoa(st.n)
	if req.Params != nil {
		if answer, ok := req.Params.InputResponses[id]; ok {
			return answer, nil
		}
	}
	return nil, &needInput{id: id, request: request}
}

// clientCaps returns the capabilities the client of ctx's call declared.
func clientCaps(ctx context.Context) (*sdk.ClientCapabilities, error) {
	req := RequestFrom(ctx)
	if req == nil || req.Session == nil {
		return nil, ErrNoClient
	}
	if ip := req.Session.InitializeParams(); ip != nil {
		return ip.Capabilities, nil
	}
	return nil, nil
}

// Elicit asks the client of the served tool call in ctx for input from its user (a form, or a URL
// to visit) and returns the client's answer: accept with content, decline, or cancel. The
// question goes out as MCP 2026-07-28's multi-round-trip request: the call stops (return Elicit's
// error as the tool's) and runs again from the start with the answer, so what the tool does
// before asking must bear running twice; an older client is asked directly by the SDK, with the
// same re-run. A client that declared no elicitation, or not the mode asked for, is an error
// matching [ErrUnsupported], before anything is sent; outside a served call it is [ErrNoClient].
func Elicit(ctx context.Context, params *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	caps, err := clientCaps(ctx)
	if err != nil {
		return nil, err
	}
	if params == nil {
		return nil, errors.New("mcp: eliciting: no parameters")
	}
	if caps == nil || caps.Elicitation == nil {
		return nil, fmt.Errorf("%w: the client does not take elicitation requests", ErrUnsupported)
	}
	mode := params.Mode
	if mode == "" {
		mode = "form"
		if params.URL != "" {
			mode = "url"
		}
	}
	e := caps.Elicitation
	switch {
	case mode == "url" && e.URL == nil:
		return nil, fmt.Errorf("%w: the client does not take URL elicitation", ErrUnsupported)
	case mode == "form" && e.Form == nil && e.URL != nil: // neither set means form, as the spec says
		return nil, fmt.Errorf("%w: the client does not take form elicitation", ErrUnsupported)
	}
	answer, err := ask(ctx, params)
	if err != nil {
		return nil, err
	}
	res, ok := answer.(*sdk.ElicitResult)
	if !ok {
		return nil, fmt.Errorf("mcp: eliciting: the client answered with %T", answer)
	}
	return res, nil
}

// Sample asks the client of the served tool call in ctx to run its model on params (sampling) and
// returns the message it made, asked as [Elicit] asks (the call runs again with the answer). A
// client that declared no sampling is an error matching [ErrUnsupported], before anything is
// sent; outside a served call it is [ErrNoClient]. Sampling is deprecated as of MCP 2026-07-28,
// though clients still serve it during the deprecation window.
func Sample(ctx context.Context, params *sdk.CreateMessageParams) (*sdk.CreateMessageResult, error) {
	caps, err := clientCaps(ctx)
	if err != nil {
		return nil, err
	}
	if params == nil {
		return nil, errors.New("mcp: sampling: no parameters")
	}
	if caps == nil || caps.Sampling == nil {
		return nil, fmt.Errorf("%w: the client does not take sampling requests", ErrUnsupported)
	}
	answer, err := ask(ctx, params)
	if err != nil {
		return nil, err
	}
	switch res := answer.(type) {
	case *sdk.CreateMessageResult:
		return res, nil
	case *sdk.CreateMessageWithToolsResult:
		if len(res.Content) != 1 {
			return nil, fmt.Errorf("mcp: sampling: the client answered with %d content blocks", len(res.Content))
		}
		return &sdk.CreateMessageResult{Meta: res.Meta, Content: res.Content[0], Model: res.Model, Role: res.Role, StopReason: res.StopReason}, nil
	}
	return nil, fmt.Errorf("mcp: sampling: the client answered with %T", answer)
}
