package bedrock

import (
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/provider/internal/cachepoint"
)

// MaxCachePoints is how many cache checkpoints Bedrock accepts in one request.
const MaxCachePoints = 4

// Cache says where to put prompt-caching checkpoints (cachePoint blocks) in a request, for the
// models that support prompt caching (Anthropic Claude, Amazon Nova; Nova caches system and
// messages, not tools). Bedrock caches the request's prefix up to each checkpoint, in the order
// tools, system, messages; a later request starting with the same prefix reads it from the cache.
// Usage reports the reads in [chat.Usage.CachedInputTokens] and the writes in
// [chat.Usage.CacheWriteInputTokens]. A prefix shorter than the model's minimum is not cached.
//
// The zero Cache puts no checkpoints. [CacheAuto] is the setting for tool loops.
type Cache struct {
	// Tools puts a checkpoint after the last tool definition.
	Tools bool
	// System puts a checkpoint after the system prompt.
	System bool
	// Messages puts a checkpoint at the end of each of the last Messages turns, counted as sent,
	// after consecutive messages of one role are merged.
	Messages int
	// TTL is how long the cached prefix lives: "" (the default, five minutes), "5m" or "1h"
	// (for the models that offer it).
	TTL string
}

// CacheAuto is the automatic mode for tool loops: checkpoints after the tools, the system prompt
// and the last turn, so each round of a loop reads the previous round's request, which it begins
// with, from the cache and only the new turns are processed.
var CacheAuto = Cache{Tools: true, System: true, Messages: 1}

// check rejects settings Bedrock would refuse.
func (c Cache) check() error {
	return cachepoint.Layout(c).Check(ProviderName, "checkpoints", "Bedrock", MaxCachePoints)
}

// apply appends the checkpoints c names to the request.
func (c Cache) apply(in *bedrockruntime.ConverseInput) {
	if cachepoint.Layout(c).Points() == 0 {
		return
	}
	point := types.CachePointBlock{Type: types.CachePointTypeDefault, Ttl: types.CacheTTL(c.TTL)}
	if tc := in.ToolConfig; c.Tools && tc != nil && len(tc.Tools) > 0 {
		tc.Tools = append(tc.Tools, &types.ToolMemberCachePoint{Value: point})
	}
	if c.System && len(in.System) > 0 {
		in.System = append(in.System, &types.SystemContentBlockMemberCachePoint{Value: point})
	}
	for i := 0; i < c.Messages && i < len(in.Messages); i++ {
		msg := &in.Messages[len(in.Messages)-1-i]
		msg.Content = append(msg.Content, &types.ContentBlockMemberCachePoint{Value: point})
	}
}

// extraCache reads the call's cache setting from Extra: a Cache, a *Cache (nil turns caching
// off) or a bool (true is [CacheAuto], false turns caching off).
func extraCache(extra map[string]any, def Cache) (Cache, error) {
	return cachepoint.FromExtra(extra, ExtraCache, ProviderName, def, CacheAuto, Cache.check)
}
