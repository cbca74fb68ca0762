package compact

import (
	"context"
	"strings"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/engine"
)

// minCalibrationTokens is the smallest request whose usage corrects the estimate: below it the
// providers' fixed framing (system text they add, tool-use preambles) outweighs the content.
const minCalibrationTokens = 1024

// estimator returns the estimate for req's turn: corrected by the turn's calibration, or, before
// the turn has one and outside a durable turn (whose decisions must replay the same), by what the
// compactor learned last of the model's provider family.
func (c *Compactor) estimator(ctx context.Context, req *client.Request, st *turnState) budget.Estimator {
	return c.estimatorOf(ctx, c.model(&req.Prompt), st)
}

func (c *Compactor) estimatorOf(ctx context.Context, mb *modelBudget, st *turnState) budget.Estimator {
	if st != nil && st.scale > 0 {
		return scaled(c.est, st.scale)
	}
	if c.cfg.DisableCalibration {
		return c.est
	}
	if s := mb.learned.Load(); s > 0 && engine.From(ctx) == nil {
		return scaled(c.est, int(s))
	}
	return c.est
}

// scaled returns e corrected by scale thousandths.
func scaled(e budget.Estimator, scale int) budget.Estimator {
	return e.Calibrate(1000, chat.Usage{InputTokens: scale})
}

// after corrects the turn's estimate by the input tokens the response reports for the request
// that was sent. A correction up is taken at once, since an estimate too low lets a request
// overflow; one down moves half way, since content varies from call to call. Requests too small
// to matter against the budget are not measured, so an ordinary turn pays nothing for it.
func (c *Compactor) after(ctx context.Context, req *client.Request, resp *client.Response) (*client.Response, error) {
	if c.cfg.DisableCalibration || resp == nil || resp.Chat == nil {
		return resp, nil
	}
	used := resp.Chat.Usage.InputTokens
	st := peekState(req.Turn)
	if st != nil && st.retried {
		st.retried = false
		return resp, nil
	}
	cleared, compacted := nativeSaved(resp.Chat)
	if used <= 0 || compacted {
		return resp, nil // a compacted request's usage says nothing of the request sent
	}
	used += cleared // the provider counted the request after clearing

	// The provider's own count says whether the request was large enough to matter.
	mb := c.model(&req.Prompt)
	if b := c.budgetOf(mb, nil); b > 0 && used < b/4 {
		return resp, nil
	}
	if st == nil {
		st = c.stateOf(req)
	}
	// The before-call hook measured these messages already, as a rule: the estimate is reused.
	raw := st.sizes.raw(c.est, &req.Prompt)
	if raw < minCalibrationTokens {
		return resp, nil
	}
	seen := min(max(int(int64(used)*1000/int64(raw)), 250), 4000)
	cur := c.estimatorOf(ctx, mb, st).Scale()
	next := seen
	if seen < cur {
		next = (cur + seen + 1) / 2
	}
	st.scale = next
	mb.learned.Store(int32(next))
	return resp, nil
}

// Calibration returns the correction of the estimate the compactor learned last for the provider
// family of model, in thousandths of the heuristic's count (1000: none, or nothing learned yet).
// A new turn outside a durable engine starts from it; each turn then follows its own responses.
func (c *Compactor) Calibration(model string) int {
	if s := c.learned[familyOfModel(c.cfg.Family, model)].Load(); s > 0 {
		return int(s)
	}
	return 1000
}

// familyOfModel returns the provider family whose correction a model's requests share: the
// configured family when there is one, else the one its name tells.
func familyOfModel(configured budget.Family, model string) budget.Family {
	if configured != "" {
		return configured
	}
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "anthropic.") || strings.HasPrefix(m, "amazon.") || strings.HasPrefix(m, "meta.") || strings.HasPrefix(m, "mistral."):
		return budget.FamilyBedrock
	case strings.HasPrefix(m, "claude"):
		return budget.FamilyAnthropic
	case strings.HasPrefix(m, "gemini"):
		return budget.FamilyGemini
	case strings.HasPrefix(m, "gpt") || strings.HasPrefix(m, "chatgpt") || strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") || strings.HasPrefix(m, "o4"):
		return budget.FamilyOpenAI
	}
	return budget.FamilyGeneric
}
