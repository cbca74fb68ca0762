package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
)

// contextBudget is the input tokens a chat's requests may hold: --context, else the model's
// window minus its output reserve from budget's table (0 when the model is not in it: results
// are then only capped).
func contextBudget(flag int, s modelSpec, options *chat.Options) int {
	if flag > 0 {
		return flag
	}
	l, ok := budget.Models().Lookup(s.name)
	if !ok {
		return 0
	}
	maxTokens := 0
	if options != nil {
		maxTokens = options.MaxTokens
	}
	return l.Budget(maxTokens)
}

// newCompactor is the compaction of a chat's turns: results capped, old ones cleared, older
// rounds summarised by the chat's own model, within budget. The conversation's store keeps what
// was cut, so that a later question, whose history holds the compacted form, fetches it.
func newCompactor(s chatSetup) *compact.Compactor {
	cfg := compact.Config{Budget: s.contextBudget, Family: budget.FamilyOf(s.provider), Summarizer: s.model, Native: s.nativeContext}
	if st, ok := s.repo.(compact.Store); ok {
		cfg.Store = st
	}
	return compact.New(cfg)
}

// compactionLine is the one-line note of a compaction.
func compactionLine(c *client.Compaction) string {
	var cut []string
	if n := len(c.Capped); n > 0 {
		cut = append(cut, fmt.Sprintf("%d results cut to excerpts", n))
	}
	if n := len(c.Cleared); n > 0 {
		cut = append(cut, fmt.Sprintf("%d old results cleared", n))
	}
	if c.Summarized > 0 {
		cut = append(cut, fmt.Sprintf("%d messages summarised", c.Summarized))
	}
	if len(cut) == 0 {
		cut = append(cut, "nothing could be cut")
	}
	line := fmt.Sprintf("context compacted: %s; about %d → %d tokens", strings.Join(cut, ", "), c.Before, c.After)
	if c.Budget > 0 {
		line += fmt.Sprintf(" of %d", c.Budget)
	}
	if c.SummaryError != "" {
		line += " (no summary: " + oneLine(c.SummaryError, 80) + ")"
	}
	return line
}

// compacted says what /compact did: messages and estimated tokens before and after, and the
// id the conversation before is kept under.
type compacted struct {
	messagesBefore, messagesAfter int
	tokensBefore, tokensAfter     int
	kept                          string
}

// compactConversation compacts the stored conversation now (/compact): against half its
// estimated size, with the chat's model summarising, so that what a compaction would do when
// the window fills is done at once. The conversation before is kept whole under a new id, so
// nothing is lost.
func (l *chatLoop) compactConversation(ctx context.Context) (compacted, error) {
	s := l.setup
	msgs, err := s.repo.Messages(ctx, s.conversation)
	if err != nil {
		return compacted{}, err
	}
	if len(msgs) == 0 {
		return compacted{}, errors.New("nothing to compact: the conversation is empty")
	}
	est := budget.For(budget.FamilyOf(s.provider))
	n := est.Prompt(&chat.Prompt{Messages: msgs})
	run := func(target int) (*client.Request, error) {
		cp := compact.New(compact.Config{Budget: target, Family: budget.FamilyOf(s.provider), Summarizer: s.model, KeepRounds: 1, KeepResults: 1})
		return cp.Hooks().BeforeCall(ctx, &client.Request{Prompt: chat.Prompt{Messages: msgs, Options: &chat.Options{}}})
	}
	out, err := run(max(n/2, 1))
	var over *compact.OverflowError
	if errors.As(err, &over) {
		// Half was out of reach: take what compaction reaches, with room for a summary's length
		// to change between the two runs.
		out, err = run(over.Requested + over.Requested/4)
	}
	if err != nil {
		return compacted{}, err
	}
	after := est.Prompt(&chat.Prompt{Messages: out.Prompt.Messages})
	if after >= n {
		return compacted{}, errors.New("nothing to compact: no long tool results to cut and no earlier tool rounds to summarise")
	}
	r := compacted{messagesBefore: len(msgs), messagesAfter: len(out.Prompt.Messages), tokensBefore: n, tokensAfter: after, kept: newUnnamedID()}
	if err := s.repo.Append(ctx, r.kept, msgs...); err != nil {
		return compacted{}, err
	}
	if err := s.repo.Replace(ctx, s.conversation, out.Prompt.Messages); err != nil {
		return compacted{}, err
	}
	return r, nil
}
