package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/provider/openai"
)

// modelOption is one setting -o KEY VALUE takes: what it means, and how VALUE is set on the
// options of a request to a provider (an error for a value out of range, or a provider without
// the setting).
type modelOption struct {
	key, help string
	set       func(o *chat.Options, provider, value string) error
}

// modelOptions are the settings -o takes, with the names llm and the providers' APIs use.
var modelOptions = []modelOption{
	{"temperature", "sampling temperature, 0 to 2", func(o *chat.Options, _, v string) error {
		f, err := optFloat(v, 0, 2)
		o.Temperature = &f
		return err
	}},
	{"top_p", "nucleus sampling, 0 to 1", func(o *chat.Options, _, v string) error {
		f, err := optFloat(v, 0, 1)
		o.TopP = &f
		return err
	}},
	{"top_k", "top-k sampling, a whole number from 1 (anthropic, gemini)", func(o *chat.Options, p, v string) error {
		n, err := optInt(v, 1, math.MaxInt32)
		if err != nil {
			return err
		}
		return setExtra(o, p, n, map[string]string{"anthropic": anthropic.ExtraTopK, "gemini": gemini.ExtraTopK})
	}},
	{"seed", "seed for reproducible sampling, a whole number", func(o *chat.Options, _, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want a whole number, not %q", v)
		}
		o.Seed = &n
		return nil
	}},
	{"max_tokens", "most tokens of each answer, from 1", func(o *chat.Options, _, v string) error {
		n, err := optInt(v, 1, math.MaxInt32)
		o.MaxTokens = n
		return err
	}},
	{"stop", "a sequence that ends the answer (repeatable)", func(o *chat.Options, _, v string) error {
		if v == "" {
			return fmt.Errorf("want a sequence, not nothing")
		}
		o.Stop = append(o.Stop, v)
		return nil
	}},
	{"reasoning_effort", "none, minimal, low, medium or high (openai; gemini's thinking level)", func(o *chat.Options, p, v string) error {
		levels := []string{"none", "minimal", "low", "medium", "high"}
		if p == "gemini" {
			levels = levels[1:]
		}
		if !slices.Contains(levels, v) {
			return fmt.Errorf("want one of %s, not %q", strings.Join(levels, ", "), v)
		}
		return setExtra(o, p, v, map[string]string{"openai": openai.ExtraReasoningEffort, "gemini": gemini.ExtraThinkingLevel})
	}},
	{"thinking_budget", "tokens the model may think, 0 for none (anthropic, gemini; -1 lets gemini decide)", func(o *chat.Options, p, v string) error {
		n, err := optInt(v, -1, math.MaxInt32)
		if err != nil {
			return err
		}
		if n == -1 && p != "gemini" {
			return fmt.Errorf("-1 is gemini's; want 0 or more")
		}
		return setExtra(o, p, n, map[string]string{"anthropic": anthropic.ExtraThinkingBudget, "gemini": gemini.ExtraThinkingBudget})
	}},
	{"tool_choice", "auto, none, required, or the name of the tool the model must call", func(o *chat.Options, _, v string) error {
		if v == "" {
			return fmt.Errorf("want auto, none, required or a tool's name")
		}
		o.ToolChoice = v
		return nil
	}},
	{"parallel_tool_calls", "true or false: whether one answer may call several tools", func(o *chat.Options, _, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false, not %q", v)
		}
		o.ParallelToolCalls = &b
		return nil
	}},
}

// modelOptionKeys are the keys -o takes, for messages and completion.
func modelOptionKeys() []string {
	keys := make([]string, len(modelOptions))
	for i, m := range modelOptions {
		keys[i] = m.key
	}
	return keys
}

// buildOptions turns KEY=VALUE settings into the options of requests to provider. Each bad one
// is an error that names it and says what it takes.
func buildOptions(provider string, settings []string) (*chat.Options, error) {
	if len(settings) == 0 {
		return nil, nil
	}
	o := &chat.Options{}
	for _, s := range settings {
		key, value, ok := strings.Cut(s, "=")
		if !ok {
			return nil, usagef("-o %s needs a VALUE: -o %s VALUE (or -o %s=VALUE)", safeLine(key), safeLine(key), safeLine(key))
		}
		key = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(key)), "-", "_")
		i := slices.IndexFunc(modelOptions, func(m modelOption) bool { return m.key == key })
		if i < 0 {
			return nil, usagef("-o %s: no such option; the options are %s", safeLine(oneLine(key, 40)), strings.Join(modelOptionKeys(), ", "))
		}
		if err := modelOptions[i].set(o, provider, strings.TrimSpace(value)); err != nil {
			return nil, usagef("-o %s %s: %v", key, safeLine(oneLine(value, 40)), err)
		}
	}
	return o, nil
}

// setExtra sets the provider's own key for a setting, or says which providers have it.
func setExtra(o *chat.Options, provider string, value any, keys map[string]string) error {
	k, ok := keys[provider]
	if !ok {
		have := slices.Sorted(func(yield func(string) bool) {
			for p := range keys {
				if !yield(p) {
					return
				}
			}
		})
		return fmt.Errorf("%s models do not take it (%s do)", provider, strings.Join(have, " and "))
	}
	if o.Extra == nil {
		o.Extra = map[string]any{}
	}
	o.Extra[k] = value
	return nil
}

func optFloat(v string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		return 0, fmt.Errorf("want a number from %g to %g, not %q", lo, hi, v)
	}
	return f, nil
}

func optInt(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want a whole number from %d to %d, not %q", lo, hi, v)
	}
	return n, nil
}

// joinOptionPairs rewrites chat's -o KEY VALUE (llm's form, two words) as -o KEY=VALUE, the one
// value a flag takes. Only -o, --option and their KEY without = are joined; everything after --
// is left alone.
func joinOptionPairs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "-o" || a == "--option") && i+2 < len(args) && !strings.Contains(args[i+1], "=") && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, a, args[i+1]+"="+args[i+2])
			i += 2
			continue
		}
		out = append(out, a)
	}
	return out
}
