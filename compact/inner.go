package compact

import (
	"context"
	"slices"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// Innermost returns the advisor that compacts the whole request the model is sent, for turns
// whose conversation history joins the request inside the tool loop (a memory advisor ordered
// inside it): the loop's hooks ([Compactor.Hooks]) see only the turn's own messages. Order it
// inside that advisor: order is its place in the chain (above the memory advisor's).
//
// A request whose history holds a form compacted earlier (with a [Config.Store], which keeps the
// originals) or that this advisor compacts is offered the fetch tool in that same call. The
// loop runs only the tools of its own request, so once Innermost is called the loop's hooks put
// the fetch tool in every request of the loop, and this advisor takes it out again where there
// is nothing to fetch: the model sees it only when something was cut. The loop's own messages
// never take the compacted history's place (it joins the request anew on each call).
func (c *Compactor) Innermost(order int) client.Advisor {
	c.inner.Store(true)
	return client.NewAdvisor(order, func(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
		if c.cfg.Store != nil {
			if st := peekState(req.Turn); (st == nil || !st.cut()) && compacted(req.Prompt.Messages) {
				c.stateOf(req).carried = true // what was cut before is read from the Store
			}
		}
		out, err := c.compactCall(ctx, req, false)
		if err != nil {
			return nil, err
		}
		if st := peekState(out.Turn); (st == nil || !st.cut()) && hasTool(out.Prompt.Options, FetchToolName) {
			o := out.Prompt.Options.Clone()
			o.Tools = slices.DeleteFunc(o.Tools, func(t tool.Tool) bool { return t.Definition().Name == FetchToolName })
			out = out.WithOptions(o)
		}
		return next(ctx, out)
	})
}
