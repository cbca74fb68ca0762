package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/provider/internal/cachepoint"
)

// MaxCacheBreakpoints is how many cache_control breakpoints the Messages API accepts in one
// request.
const MaxCacheBreakpoints = 4

// Cache says where to put prompt-caching breakpoints (cache_control) in a request. Anthropic
// caches the request's prefix up to each breakpoint, in the order tools, system, messages; a
// later request starting with the same prefix reads it from the cache (billed at a tenth of the
// input price) instead of processing it again. Usage reports the reads in
// [chat.Usage.CachedInputTokens] and the writes in [chat.Usage.CacheWriteInputTokens]. A prefix
// shorter than the model's minimum (1024 tokens for most models) is not cached, without error.
//
// The zero Cache puts no breakpoints. [CacheAuto] is the setting for tool loops.
type Cache struct {
	// Tools puts a breakpoint on the last tool definition (the last not deferred, with tool
	// search): the tools are cached even when the system prompt changes.
	Tools bool
	// System puts a breakpoint on the last block of the system prompt.
	System bool
	// Messages puts a breakpoint on the last block (text, image, document, tool_use or
	// tool_result; never a thinking block) of each of the last Messages turns, counted as sent,
	// after consecutive messages of one role are merged.
	Messages int
	// TTL is how long the cached prefix lives: "" (Anthropic's default, five minutes), "5m" or
	// "1h" (writes cost more).
	TTL string
}

// CacheAuto is the automatic mode for tool loops: breakpoints on the last tool, the system prompt
// and the last message. Each round of a loop resends the previous round's request and appends the
// model's answer and the tool results, so the breakpoint on the last message of one round marks
// a prefix the next round reads (the API looks for cached prefixes up to 20 blocks before a
// breakpoint), and only the new turns are processed. Three breakpoints, one under the API's limit.
var CacheAuto = Cache{Tools: true, System: true, Messages: 1}

// check rejects settings the API would refuse.
func (c Cache) check() error {
	return cachepoint.Layout(c).Check("anthropic", "breakpoints", "the API", MaxCacheBreakpoints)
}

// apply sets cache_control on the blocks c names. Blocks that cannot carry it (thinking) are
// passed over for the block before them.
func (c Cache) apply(params *sdk.MessageNewParams) {
	if cachepoint.Layout(c).Points() == 0 {
		return
	}
	cc := sdk.NewCacheControlEphemeralParam()
	cc.TTL = sdk.CacheControlEphemeralTTL(c.TTL)
	// Deferred tools are not part of the cached prefix: the breakpoint goes on the last tool sent
	// in full.
	for i := len(params.Tools) - 1; c.Tools && i >= 0; i-- {
		if deferred(params.Tools[i]) {
			continue
		}
		if p := params.Tools[i].GetCacheControl(); p != nil {
			*p = cc
		}
		break
	}
	if n := len(params.System); c.System && n > 0 {
		params.System[n-1].CacheControl = cc
	}
	for i := 0; i < c.Messages && i < len(params.Messages); i++ {
		content := params.Messages[len(params.Messages)-1-i].Content
		for j := len(content) - 1; j >= 0; j-- {
			if p := content[j].GetCacheControl(); p != nil {
				*p = cc
				break
			}
		}
	}
}

// extraCache reads the call's cache setting from Extra: a Cache, a *Cache (nil turns caching
// off) or a bool (true is [CacheAuto], false turns caching off).
func extraCache(extra map[string]any, def Cache) (Cache, error) {
	return cachepoint.FromExtra(extra, ExtraCache, "anthropic", def, CacheAuto, Cache.check)
}
