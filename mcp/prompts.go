package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

// MaxPromptMessages is the most messages a prompt may hold, read or served: far more than a
// conversation's start needs, and a bound on what a server can make a turn carry.
const MaxPromptMessages = 10_000

// ErrPromptTooLarge matches the error of a prompt with more than [MaxPromptMessages] messages.
var ErrPromptTooLarge = errors.New("mcp: prompt too large")

// Prompts lists the server's prompts, all pages (at most 100,000 entries).
func (c *Client) Prompts(ctx context.Context) ([]*sdk.Prompt, error) {
	return request(ctx, c, "listing prompts", func(ctx context.Context, s *sdk.ClientSession) ([]*sdk.Prompt, error) {
		return listAll(s.Prompts(ctx, nil), "prompts")
	})
}

// GetPrompt gets the server's prompt name filled with args, as chat messages that can start a
// conversation: consecutive prompt messages of one role become one message, its first text the
// message's Content and the rest (images, audio, documents, further text) its Parts. Content
// converts as tool results do ([ResultParts]): media a model cannot be sent is described in text.
// A prompt over [MaxPromptMessages] messages fails with an error matching [ErrPromptTooLarge].
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) ([]chat.Message, error) {
	res, err := request(ctx, c, "getting prompt "+quoteName(name), func(ctx context.Context, s *sdk.ClientSession) (*sdk.GetPromptResult, error) {
		return s.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	})
	if err != nil {
		if tooLarge(err) {
			return nil, fmt.Errorf("%w: %w", ErrPromptTooLarge, err)
		}
		return nil, err
	}
	msgs, err := PromptMessages(res)
	if err != nil {
		return nil, fmt.Errorf("mcp: server %s, prompt %s: %w", quoteName(c.cfg.Name), quoteName(name), err)
	}
	return msgs, nil
}

// PromptMessages converts a prompts/get answer into chat messages, as [Client.GetPrompt]
// describes.
func PromptMessages(res *sdk.GetPromptResult) ([]chat.Message, error) {
	if res == nil {
		return nil, nil
	}
	if n := len(res.Messages); n > MaxPromptMessages {
		return nil, fmt.Errorf("%w: %d messages, over the limit of %d", ErrPromptTooLarge, n, MaxPromptMessages)
	}
	var out []chat.Message
	for i, pm := range res.Messages {
		if pm == nil || pm.Content == nil {
			return nil, fmt.Errorf("message %d has no content", i+1)
		}
		var role chat.Role
		switch pm.Role {
		case "user":
			role = chat.RoleUser
		case "assistant":
			role = chat.RoleAssistant
		default:
			return nil, fmt.Errorf("message %d has the role %s; a prompt's roles are user and assistant", i+1, quoteName(string(pm.Role)))
		}
		p, ok := mediaPart(pm.Content)
		if !ok {
			p = content.Text(contentText(pm.Content))
		}
		if len(out) == 0 || out[len(out)-1].Role != role {
			out = append(out, chat.Message{Role: role})
		}
		m := &out[len(out)-1]
		if p.IsText() && m.Content == "" && len(m.Parts) == 0 {
			m.Content = p.Text
		} else {
			m.Parts = append(m.Parts, p)
		}
	}
	return out, nil
}

// Prompt is a prompt a [Server] serves from Go values: fixed messages, or messages made from the
// client's arguments on each get.
type Prompt struct {
	Name        string // required
	Title       string
	Description string
	// Arguments are the arguments the prompt takes; a get without a required one is refused
	// before Get runs, as is one naming an argument not listed here.
	Arguments []*sdk.PromptArgument
	// Exactly one of Messages and Get gives the messages, whose roles must be user or assistant.
	Messages []chat.Message
	Get      func(ctx context.Context, args map[string]string) ([]chat.Message, error)
}

// AddPrompts serves prompts; a prompt with the name of one already served replaces it.
func (s *Server) AddPrompts(ps ...Prompt) error {
	for _, p := range ps {
		switch {
		case p.Name == "":
			return errors.New("mcp: a prompt needs a name")
		case (p.Messages != nil) == (p.Get != nil):
			return fmt.Errorf("mcp: prompt %q: exactly one of Messages and Get must be set", p.Name)
		}
		if p.Messages != nil {
			if _, err := promptResult(p.Messages); err != nil {
				return fmt.Errorf("mcp: prompt %q: %w", p.Name, err)
			}
		}
		s.sdk.AddPrompt(&sdk.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments}, s.promptHandler(p))
	}
	return nil
}

func (s *Server) promptHandler(p Prompt) sdk.PromptHandler {
	return func(ctx context.Context, req *sdk.GetPromptRequest) (res *sdk.GetPromptResult, err error) {
		args := req.Params.Arguments
		for name := range args {
			known := false
			for _, a := range p.Arguments {
				known = known || (a != nil && a.Name == name)
			}
			if !known {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s has no argument %s", quoteName(p.Name), quoteName(name))}
			}
		}
		for _, a := range p.Arguments {
			if a == nil || !a.Required {
				continue
			}
			if _, ok := args[a.Name]; !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s needs the argument %s", quoteName(p.Name), quoteName(a.Name))}
			}
		}
		defer func() {
			if r := recover(); r != nil {
				s.logger.Error("mcp: prompt panicked", "prompt", p.Name, "panic", fmt.Sprint(r))
				res, err = nil, fmt.Errorf("getting prompt %s failed", quoteName(p.Name))
			}
		}()
		msgs := p.Messages
		if p.Get != nil {
			if msgs, err = p.Get(ctx, args); err != nil {
				if _, ok := errors.AsType[*jsonrpc.Error](err); ok {
					return nil, err
				}
				s.logger.Error("mcp: prompt failed", "prompt", p.Name, "error", err)
				return nil, fmt.Errorf("getting prompt %s failed", quoteName(p.Name))
			}
		}
		res, err = promptResult(msgs)
		if err != nil {
			s.logger.Error("mcp: prompt failed", "prompt", p.Name, "error", err)
			return nil, fmt.Errorf("getting prompt %s failed", quoteName(p.Name))
		}
		res.Description = p.Description
		return res, nil
	}
}

// promptResult converts chat messages into a prompts/get answer: a prompt message per block,
// blocks as a tool result's are.
func promptResult(msgs []chat.Message) (*sdk.GetPromptResult, error) {
	if len(msgs) > MaxPromptMessages {
		return nil, fmt.Errorf("%w: %d messages, over the limit of %d", ErrPromptTooLarge, len(msgs), MaxPromptMessages)
	}
	res := &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{}}
	for i, m := range msgs {
		var role sdk.Role
		switch m.Role {
		case chat.RoleUser:
			role = "user"
		case chat.RoleAssistant:
			role = "assistant"
		default:
			return nil, fmt.Errorf("message %d has the role %q; a prompt's roles are user and assistant", i+1, m.Role)
		}
		for _, c := range resultContent(tool.Result{Text: m.Content, Parts: m.Parts}) {
			res.Messages = append(res.Messages, &sdk.PromptMessage{Role: role, Content: c})
		}
	}
	if len(res.Messages) > MaxPromptMessages {
		return nil, fmt.Errorf("%w: %d blocks, over the limit of %d", ErrPromptTooLarge, len(res.Messages), MaxPromptMessages)
	}
	return res, nil
}
