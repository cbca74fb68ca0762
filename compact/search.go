package compact

import (
	"context"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/toolsearch"
)

// Loop returns the tool loop of a turn compacted by c: loop's config with c's hooks chained
// after its own. Above searchAbove tool definitions (0: never) the turn runs through tool search
// instead ([toolsearch.Advisor], configured by ts, with the same hooks): the model is sent the
// search tool and the tools it finds rather than every definition. Add the result and c to the
// client's advisors.
func (c *Compactor) Loop(loop client.ToolLoopConfig, searchAbove int, ts toolsearch.Config) client.Advisor {
	loop.Hooks = client.ChainHooks(loop.Hooks, c.Hooks())
	l := &searchLoop{ToolLoop: client.NewToolLoop(loop), above: searchAbove}
	if searchAbove > 0 {
		ts.Loop = loop
		l.search = toolsearch.New(ts)
	}
	return l
}

// searchLoop is a tool loop that hands a turn with too many tools to tool search.
type searchLoop struct {
	*client.ToolLoop
	search *toolsearch.Advisor
	above  int
}

func (l *searchLoop) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	if l.search != nil && req.Prompt.Options != nil && len(req.Prompt.Options.Tools) > l.above {
		return l.search.Advise(ctx, req, next)
	}
	return l.ToolLoop.Advise(ctx, req, next)
}
