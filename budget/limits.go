package budget

import (
	"fmt"
	"strings"
)

// Limits are a model's context window and output limit, in tokens.
type Limits struct {
	// Context is the most tokens a request and its answer may hold together.
	Context int `json:"context"`
	// Output is the most tokens the model writes in one answer; 0 when the model has no limit
	// below its window.
	Output int `json:"output,omitempty"`
}

// DefaultReserve is the output reserve of a model whose output limit is not known.
const DefaultReserve = 4096

// Budget returns the input tokens a request may hold: the window minus the output reserve.
// The reserve is maxTokens when positive (the request's own cap), else the model's output
// limit, else [DefaultReserve]; it never takes more than a quarter of the window, so a
// model with a huge output limit still has room for input. 0 when the window is not known.
func (l Limits) Budget(maxTokens int) int {
	if l.Context <= 0 {
		return 0
	}
	reserve := maxTokens
	if reserve <= 0 {
		reserve = l.Output
	}
	if reserve <= 0 {
		reserve = DefaultReserve
	}
	reserve = min(reserve, l.Context/4)
	return l.Context - reserve
}

// Table maps model names, or prefixes of them, to their limits. A lookup takes the exact name,
// else the longest key the name starts with; a Bedrock model id is also looked up without its
// region and vendor ("us.anthropic.claude-sonnet-4-…" as "claude-sonnet-4-…"). Table is plain
// data: decode one from configuration and layer it over the defaults with [Table.Merge].
type Table map[string]Limits

// Lookup returns the limits of model.
func (t Table) Lookup(model string) (Limits, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if m == "" {
		return Limits{}, false
	}
	if l, ok := t[m]; ok {
		return l, true
	}
	// Every form of the name is tried (Bedrock: "us.anthropic.claude-…", "anthropic.claude-…",
	// "mistral.mistral-large-…"); the longest key matched wins, the earlier form on a tie.
	var best Limits
	bestLen := -1
	for name := m; ; {
		if k, l, ok := t.longestPrefix(name); ok && len(k) > bestLen {
			best, bestLen = l, len(k)
		}
		i := strings.IndexByte(name, '.')
		if i < 0 {
			break
		}
		name = name[i+1:]
	}
	return best, bestLen >= 0
}

func (t Table) longestPrefix(name string) (string, Limits, bool) {
	best, found := "", false
	for k := range t {
		kl := strings.ToLower(k)
		if !strings.HasPrefix(name, kl) {
			continue
		}
		// Longest wins; ties (keys equal but for case) broken by the lesser key, so that the
		// answer never depends on map order.
		if !found || len(kl) > len(best) || (len(kl) == len(best) && k < best) {
			best, found = k, true
		}
	}
	if !found {
		return "", Limits{}, false
	}
	return best, t[best], true
}

// Merge returns a new table holding t's entries overridden by over's.
func (t Table) Merge(over Table) Table {
	out := make(Table, len(t)+len(over))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// Validate reports an entry with a negative limit or an output limit over its window.
func (t Table) Validate() error {
	for k, v := range t {
		if v.Context < 0 || v.Output < 0 {
			return fmt.Errorf("budget: limits of %q: negative", k)
		}
		if v.Context > 0 && v.Output > v.Context {
			return fmt.Errorf("budget: limits of %q: output %d over the context window %d", k, v.Output, v.Context)
		}
	}
	return nil
}

// Models returns the limits of the models wield's providers serve, as their documentation
// gives them, keyed by name or name prefix. The caller owns the returned table.
func Models() Table { return defaults.Merge(nil) }

var defaults = Table{
	// OpenAI.
	"gpt-5":         {Context: 400_000, Output: 128_000},
	"gpt-5-chat":    {Context: 128_000, Output: 16_384},
	"gpt-4.1":       {Context: 1_047_576, Output: 32_768},
	"gpt-4o":        {Context: 128_000, Output: 16_384},
	"gpt-4-turbo":   {Context: 128_000, Output: 4_096},
	"gpt-4":         {Context: 8_192, Output: 8_192},
	"gpt-3.5-turbo": {Context: 16_385, Output: 4_096},
	"o1":            {Context: 200_000, Output: 100_000},
	"o3":            {Context: 200_000, Output: 100_000},
	"o4-mini":       {Context: 200_000, Output: 100_000},
	"gpt-oss":       {Context: 131_072, Output: 131_072},
	// Anthropic (and the same models on Bedrock and Vertex AI).
	"claude-opus-4":     {Context: 200_000, Output: 32_000},
	"claude-opus-4-5":   {Context: 200_000, Output: 64_000},
	"claude-sonnet-4":   {Context: 200_000, Output: 64_000},
	"claude-haiku-4":    {Context: 200_000, Output: 64_000},
	"claude-3-7-sonnet": {Context: 200_000, Output: 64_000},
	"claude-3-5-sonnet": {Context: 200_000, Output: 8_192},
	"claude-3-5-haiku":  {Context: 200_000, Output: 8_192},
	"claude-3-haiku":    {Context: 200_000, Output: 4_096},
	"claude-3-opus":     {Context: 200_000, Output: 4_096},
	"claude":            {Context: 200_000, Output: 4_096},
	// Gemini.
	"gemini-2.5-pro":   {Context: 1_048_576, Output: 65_536},
	"gemini-2.5-flash": {Context: 1_048_576, Output: 65_536},
	"gemini-2.0-flash": {Context: 1_048_576, Output: 8_192},
	"gemini-1.5-pro":   {Context: 2_097_152, Output: 8_192},
	"gemini-1.5-flash": {Context: 1_048_576, Output: 8_192},
	"gemini":           {Context: 1_048_576, Output: 8_192},
	// Bedrock's own models.
	"nova-premier":  {Context: 1_000_000, Output: 10_000},
	"nova-pro":      {Context: 300_000, Output: 10_000},
	"nova-lite":     {Context: 300_000, Output: 10_000},
	"nova-micro":    {Context: 128_000, Output: 10_000},
	"llama3-1":      {Context: 128_000, Output: 2_048},
	"llama3-2":      {Context: 128_000, Output: 2_048},
	"llama3-3":      {Context: 128_000, Output: 2_048},
	"mistral-large": {Context: 128_000, Output: 8_192},
	// Ollama: the models' trained windows; Ollama itself runs with a smaller num_ctx unless told.
	"llama3.1":    {Context: 131_072},
	"llama3.2":    {Context: 131_072},
	"llama3.3":    {Context: 131_072},
	"qwen2.5":     {Context: 32_768},
	"qwen3":       {Context: 40_960},
	"mistral":     {Context: 32_768},
	"gemma3":      {Context: 131_072},
	"phi4":        {Context: 16_384},
	"deepseek-r1": {Context: 131_072},
}
