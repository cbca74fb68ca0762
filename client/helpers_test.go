package client_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
)

// journal records what advisors saw, in order.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, fmt.Sprintf(format, args...))
}

func (j *journal) String() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return strings.Join(j.lines, " ")
}

// recorder is an advisor that notes when it is entered and left, and how many messages it saw.
type recorder struct {
	name  string
	order int
	j     *journal
}

func (r *recorder) Order() int { return r.order }

func (r *recorder) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	r.j.add("%s>%d", r.name, len(req.Prompt.Messages))
	resp, err := next(ctx, req)
	r.j.add("<%s", r.name)
	return resp, err
}

// newTool is a hand-written tool.
var newTool = chattest.NewTool

func constTool(name, result string) *chattest.Tool {
	return newTool(name, func(context.Context, string) (string, error) { return result, nil })
}

func toolNames(p *chat.Prompt) []string {
	var names []string
	if p.Options != nil {
		for _, t := range p.Options.Tools {
			names = append(names, t.Definition().Name)
		}
	}
	return names
}
