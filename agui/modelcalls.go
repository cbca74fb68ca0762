package agui

import (
	"context"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// Names of the CUSTOM events the handler sends besides the protocol's own: AG-UI has no event
// for one model call's tokens and latency, nor for a shortened conversation.
const (
	// EventModelCall follows each model call of the run's own turn (not a sub-agent's), with the
	// value {"index", "model", "startedAt" (ms since the epoch), "latencyMs", "usage" (a
	// TokenUsage), "error" (when the call failed)}.
	EventModelCall = "wield.model_call"
	// EventCompaction says the conversation was shortened before a model call, with the value
	// {"before", "after", "budget" (estimated input tokens), "capped", "cleared" (results cut,
	// counted), "cappedIds", "clearedIds" (the first maxCompactionIDs of them), "summarized"
	// (messages a summary replaced), "summaryError", "retry" (after the provider refused the
	// request as too long)}.
	EventCompaction = "wield.compaction"
)

// maxCompactionIDs bounds the ids a compaction event lists: a long turn can cut hundreds.
const maxCompactionIDs = 32

// modelCalls returns an advisor next to the model that reports each model call to t once it
// has ended. It runs on the turn's goroutine, where the stream's events are delivered, so its
// reports fall in order with them.
func modelCalls(t *translator) client.Advisor {
	n := 0
	return client.NewAdvisor(client.LowestPrecedence, func(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
		start := time.Now()
		resp, err := next(ctx, req)
		n++
		v := map[string]any{"index": n, "startedAt": start.UnixMilli(), "latencyMs": time.Since(start).Milliseconds()}
		model := ""
		if req.Prompt.Options != nil {
			model = req.Prompt.Options.Model
		}
		if resp != nil && resp.Chat != nil {
			if resp.Chat.Model != "" {
				model = resp.Chat.Model
			}
			v["usage"] = tokenUsage(resp.Chat.Usage, model)
		}
		if model != "" {
			v["model"] = model
		}
		if err != nil {
			v["error"] = "the model call failed"
		}
		t.modelCall(v)
		return resp, err
	})
}

// tokenUsage is u as AG-UI's TokenUsage counts: the parts within the totals, the total their sum.
func tokenUsage(u chat.Usage, model string) map[string]any {
	m := map[string]any{"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens, "totalTokens": u.InputTokens + u.OutputTokens}
	if model != "" {
		m["model"] = model
	}
	for k, n := range map[string]int{"cachedInputTokens": u.CachedInputTokens, "cacheWriteInputTokens": u.CacheWriteInputTokens, "reasoningTokens": u.ReasoningTokens} {
		if n > 0 {
			m[k] = n
		}
	}
	return m
}

// modelCall sends a model call's report; the text it wrote ends with it.
func (t *translator) modelCall(v map[string]any) {
	t.closeText()
	t.emit("CUSTOM", map[string]any{"name": EventModelCall, "value": v}, "")
}

func (t *translator) compaction(c *client.Compaction, agent string) {
	v := map[string]any{"before": c.Before, "after": c.After, "budget": c.Budget, "capped": len(c.Capped), "cleared": len(c.Cleared),
		"cappedIds": firstIDs(c.Capped), "clearedIds": firstIDs(c.Cleared), "summarized": c.Summarized, "retry": c.Retry}
	if c.SummaryError != "" {
		v["summaryError"] = c.SummaryError
	}
	t.emit("CUSTOM", map[string]any{"name": EventCompaction, "value": v}, agent)
}

func firstIDs(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids[:min(len(ids), maxCompactionIDs)]
}
