package toolsearch

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// nativeState is a turn's native tool search.
type nativeState struct {
	kind chat.ToolSearchKind
	// on is true while the provider does the search or the loading; it goes false for the rest of
	// the turn when the provider refuses and the advisor falls back on its own search. The
	// search tool reads it from the goroutine that runs it.
	on atomic.Bool
	// loaded are the names of the tools sent in full beside the search.
	loaded []string
}

// checkNative reports a Config.Native that is none of chat's kinds.
func checkNative(kind chat.ToolSearchKind) error {
	switch kind {
	case "", chat.ToolSearchServer, chat.ToolSearchRegex, chat.ToolSearchBM25, chat.ToolSearchClient:
		return nil
	}
	return fmt.Errorf("toolsearch: Native %q is none of the chat.ToolSearch kinds", kind)
}

// nativeTools is the request of a turn under native search: the pinned tools, the advisor's
// search tool when the provider only loads what it finds, and every searchable tool, deferred.
func (a *Advisor) nativeTools(req *client.Request, ls *loopState) *client.Request {
	all := ls.searchable()
	tools := make([]tool.Tool, 0, len(ls.pinned)+1+len(all))
	tools = append(tools, ls.pinned...)
	search := &chat.ToolSearch{Kind: ls.native.kind, Loaded: ls.native.loaded}
	if search.Kind == chat.ToolSearchClient {
		tools = append(tools, ls.search)
		search.Tool = SearchToolName
	}
	for _, t := range all {
		if !ls.pinnedNames[t.Definition().Name] {
			tools = append(tools, t)
		}
	}
	if search.Kind != chat.ToolSearchClient && a.cfg.NativeFallback {
		// Deferred like the others, so that the loop can run it if the provider refuses this
		// request and the model searches with it instead (see Advise).
		tools = append(tools, ls.search)
	}
	o := req.Prompt.Options.Clone()
	o.Tools = tools
	o.ToolSearch = search
	r := req.WithOptions(o)
	// The provider tells the model how to search with its own tool; the advisor's prompt names
	// its search tool, so it goes only with that tool, or when set on purpose.
	if prompt := a.prompt; prompt != "" && (search.Kind == chat.ToolSearchClient || a.cfg.SystemPrompt != "") {
		r = r.WithMessages(withSystemSuffix(r.Prompt.Messages, prompt))
	}
	return r
}

// Advise runs the tool loop. With [Config.NativeFallback], a model call the provider refuses
// for want of native tool search (chat.ErrToolSearchUnsupported, raised before any request is
// sent) is made again with the advisor's own search, and so is the rest of the turn. The tools
// the loop runs are those of the refused request, which hold every tool the retried one may call:
// the searchable ones, and the search tool, deferred, beside a provider's own search.
func (a *Advisor) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	if a.cfg.Native == "" || !a.cfg.NativeFallback {
		return a.ToolLoop.Advise(ctx, req, next)
	}
	return a.ToolLoop.Advise(ctx, req, func(ctx context.Context, r *client.Request) (*client.Response, error) {
		resp, err := next(ctx, r)
		if err == nil || !errors.Is(err, chat.ErrToolSearchUnsupported) || r.Turn == nil {
			return resp, err
		}
		ls, _ := r.Turn.Value(loopKey{}).(*loopState)
		ts, _ := r.Turn.Value(turnKey{}).(*turn)
		if ls == nil || ts == nil || ls.native == nil || !ls.native.on.CompareAndSwap(true, false) {
			return resp, err
		}
		if err := ts.set.ensureIndexed(ctx, a.index, ts.defs); err != nil {
			return nil, fmt.Errorf("toolsearch: indexing the tools of session %q: %w", ts.session.info.ID, err)
		}
		// The request as the advisor's own search makes it; hooks after the advisor's BeforeCall
		// do not see this one.
		return next(ctx, a.ownSearch(r, ls))
	})
}

// ownSearch is the request of a turn under the advisor's own search: the pinned tools, the
// search tool and the tools found so far, and the system prompt.
func (a *Advisor) ownSearch(req *client.Request, ls *loopState) *client.Request {
	found := ls.search.discovered()
	tools := make([]tool.Tool, 0, len(ls.pinned)+1+len(found))
	tools = append(tools, ls.pinned...)
	tools = append(tools, ls.search)
	for _, f := range found {
		// A catalog's pinned tools are searchable too: a search may find one already sent.
		if !ls.pinnedNames[f.Definition().Name] {
			tools = append(tools, f)
		}
	}
	o := req.Prompt.Options.Clone()
	o.Tools = tools
	o.ToolSearch = nil
	r := req.WithOptions(o)
	if a.prompt != "" {
		r = r.WithMessages(withSystemSuffix(r.Prompt.Messages, a.prompt))
	}
	return r
}
