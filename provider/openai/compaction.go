package openai

import (
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/wield-ai/wield/chat"
)

// ExtraCompaction (int) turns on the Responses API's server-side compaction for the call: once
// the conversation grows past this many tokens (at least 1000), the API compacts it and answers
// with a compaction item, kept in the answer's [chat.Message.ServerTools] as a step named
// "compaction" (Data: the item as it came). The item stands for the conversation before it and
// goes back in its place; a compactor (package compact) makes the history show that on the next
// call, with the originals readable by the item's id. 0 turns it off.
const ExtraCompaction = "openai.compaction"

// extraNative is the key by which a compactor asks for the provider's own context management
// (compact.ExtraNative): a map[string]int whose "trigger" is the threshold.
const extraNative = "context.native"

// compactionStep names the step holding a compaction item (compact.NativeCompaction).
const compactionStep = "compaction"

// minCompactThreshold is the least compact_threshold the API takes.
const minCompactThreshold = 1000

// compaction sets the request's context_management from the call's options.
func compaction(params *responses.ResponseNewParams, o *chat.Options) error {
	threshold := 0
	if v, ok := o.Extra[ExtraCompaction]; ok && v != nil {
		n, ok := v.(int)
		if !ok {
			return fmt.Errorf("openai: Options.Extra[%q] is a %T, want int", ExtraCompaction, v)
		}
		if n != 0 && n < minCompactThreshold {
			return fmt.Errorf("openai: Options.Extra[%q] is %d; the API compacts at %d tokens at the least", ExtraCompaction, n, minCompactThreshold)
		}
		threshold = n
	} else if v, ok := o.Extra[extraNative]; ok {
		m, ok := v.(map[string]int)
		if !ok {
			return fmt.Errorf("openai: Options.Extra[%q] is a %T, want map[string]int", extraNative, v)
		}
		threshold = max(m["trigger"], minCompactThreshold)
	}
	if threshold > 0 {
		params.ContextManagement = []responses.ResponseNewParamsContextManagement{{Type: "compaction", CompactThreshold: oai.Int(int64(threshold))}}
	}
	return nil
}

// compactionItems splits a message's OpenAI compaction items, as input items, from its other
// server steps.
func compactionItems(m chat.Message) (items []responses.ResponseInputItemUnionParam, rest chat.Message, err error) {
	rest = m
	rest.ServerTools = nil
	for _, st := range m.ServerTools {
		if st.Provider != Provider || st.Name != compactionStep {
			rest.ServerTools = append(rest.ServerTools, st)
			continue
		}
		var it struct {
			ID               string `json:"id"`
			EncryptedContent string `json:"encrypted_content"`
		}
		if err := json.Unmarshal(st.Data, &it); err != nil {
			return nil, m, fmt.Errorf("compaction item %s: the item kept is not valid: %w", st.ID, err)
		}
		if it.EncryptedContent == "" {
			return nil, m, fmt.Errorf("compaction item %s: no encrypted_content", st.ID)
		}
		item := &responses.ResponseCompactionItemParam{EncryptedContent: it.EncryptedContent}
		if it.ID != "" {
			item.ID = oai.String(it.ID)
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfCompaction: item})
	}
	return items, rest, nil
}

// compactionOutput returns the step that keeps an output item of type compaction.
func compactionOutput(id, raw string) chat.ServerTool {
	return chat.ServerTool{Provider: Provider, ID: id, Name: compactionStep, Result: true, Data: json.RawMessage(raw)}
}
