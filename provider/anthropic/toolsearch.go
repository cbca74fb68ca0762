package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// The beta features tool search needs: Anthropic's API takes one, Bedrock and Vertex AI another.
const (
	toolSearchBeta      = "advanced-tool-use-2025-11-20"
	toolSearchCloudBeta = "tool-search-tool-2025-10-19"
)

// The names of Anthropic's tool search tools, as the model calls them in server_tool_use blocks.
const (
	regexSearchName = "tool_search_tool_regex"
	bm25SearchName  = "tool_search_tool_bm25"
)

// noToolFound is the text of a client tool search's tool_result that found nothing: a
// tool_result holding no tool_reference would say nothing to the model.
const noToolFound = "No tool found. Search again with other words."

// toolSearch applies the prompt's tool search to the request, whose tools, tool choice and
// messages are built and carry their wire names: it marks the deferred tools defer_loading, adds
// Anthropic's search tool (ToolSearchServer, ToolSearchBM25, ToolSearchRegex) or turns the
// results of the client's search tool into tool_reference blocks (ToolSearchClient), and asks for
// the beta feature.
func (m *Model) toolSearch(r *request, p *chat.Prompt, o *chat.Options) error {
	s := o.ToolSearch
	if s == nil {
		return nil
	}
	if err := s.Check(o.Tools); err != nil {
		return fmt.Errorf("anthropic: %w", err)
	}
	params := &r.params
	loaded := make(map[string]bool, len(s.Loaded)+2)
	for _, n := range s.Loaded {
		loaded[r.names.Wire(n)] = true
	}
	loaded[r.names.Wire(s.Tool)] = true
	if t := params.ToolChoice.OfTool; t != nil {
		loaded[t.Name] = true
	}
	deferred := make(map[string]bool, len(params.Tools))
	for i := range params.Tools {
		if t := params.Tools[i].OfTool; t != nil && !loaded[t.Name] {
			t.DeferLoading = sdk.Bool(true)
			deferred[t.Name] = true
		}
	}
	var search *sdk.ToolUnionParam
	switch s.Kind {
	case chat.ToolSearchServer, chat.ToolSearchBM25:
		search = &sdk.ToolUnionParam{OfToolSearchToolBm25_20251119: &sdk.ToolSearchToolBm25_20251119Param{
			Type: sdk.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119}}
	case chat.ToolSearchRegex:
		search = &sdk.ToolUnionParam{OfToolSearchToolRegex20251119: &sdk.ToolSearchToolRegex20251119Param{
			Type: sdk.ToolSearchToolRegex20251119TypeToolSearchToolRegex20251119}}
	case chat.ToolSearchClient:
		if err := r.loadFound(p.Messages, s.Tool, deferred); err != nil {
			return err
		}
	}
	if search != nil {
		params.Tools = append([]sdk.ToolUnionParam{*search}, params.Tools...)
	}
	beta := toolSearchBeta
	if m.platform != ProviderName {
		beta = toolSearchCloudBeta
	}
	r.opts = append(r.opts, option.WithHeaderAdd("anthropic-beta", beta))
	return nil
}

// loadFound turns the tool_result blocks answering the client's search tool into the
// tool_reference blocks of the tools each search found, in place: the API then loads those
// tools' definitions. A failed search is left as its text, and a search that found nothing, or
// only tools the request no longer defers, says so in text.
func (r *request) loadFound(msgs []chat.Message, searchTool string, deferred map[string]bool) error {
	found := map[string][]string{} // by call id
	for i := range msgs {
		for _, res := range msgs[i].ToolResults {
			if res.Name != searchTool || res.IsError {
				continue
			}
			names, err := chat.ParseToolSearchResult(res.Text())
			if err != nil {
				return fmt.Errorf("anthropic: message %d: result %s of the search tool %q: %w", i, res.ID, searchTool, err)
			}
			found[res.ID] = names
		}
	}
	if len(found) == 0 {
		return nil
	}
	for i := range r.params.Messages {
		for _, b := range r.params.Messages[i].Content {
			tr := b.OfToolResult
			if tr == nil {
				continue
			}
			names, ok := found[tr.ToolUseID]
			if !ok {
				continue
			}
			tr.Content = tr.Content[:0]
			for _, n := range names {
				// A tool the request no longer has, or sends in full, cannot be loaded.
				if w := r.names.Wire(n); deferred[w] {
					tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfToolReference: &sdk.ToolReferenceBlockParam{ToolName: w}})
				}
			}
			if len(tr.Content) == 0 {
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: noToolFound}})
			}
		}
	}
	return nil
}

// serverToolBlocks appends an assistant message's tool-search steps, as Anthropic sent them,
// for a request that searches on the server; other providers' steps are dropped.
func serverToolBlocks(blocks []sdk.ContentBlockParamUnion, msg *chat.Message) ([]sdk.ContentBlockParamUnion, error) {
	for _, st := range msg.ServerTools {
		if st.Provider != ProviderName || st.Name == contextStep || st.Name == compactionStep {
			continue // a report of context editing is not a block; a compaction block goes first
		}
		var b sdk.ContentBlockParamUnion
		var err error
		if st.Result {
			b.OfToolSearchToolResult = new(sdk.ToolSearchToolResultBlockParam)
			err = json.Unmarshal(st.Data, b.OfToolSearchToolResult)
		} else {
			b.OfServerToolUse = new(sdk.ServerToolUseBlockParam)
			err = json.Unmarshal(st.Data, b.OfServerToolUse)
		}
		if err != nil {
			return nil, fmt.Errorf("server tool %s: the block kept is not valid: %w", st.ID, err)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// serverTool reads a block of a tool search Anthropic ran, as it came: a server_tool_use of a tool
// search tool, or a tool_search_tool_result with the names of the tools it loaded. ok is false
// for other blocks.
func serverTool(typ, id, name string, input json.RawMessage, raw string) (st chat.ServerTool, ok bool, err error) {
	st = chat.ServerTool{Provider: ProviderName, Data: json.RawMessage(raw)}
	switch typ {
	case "server_tool_use":
		if name != regexSearchName && name != bm25SearchName {
			return st, false, nil
		}
		st.ID, st.Name = id, name
		if st.Arguments, err = wire.CompactObject(input); err != nil {
			return st, false, fmt.Errorf("server_tool_use %s: %w", id, err)
		}
		return st, true, nil
	case "tool_search_tool_result":
		var res sdk.ToolSearchToolResultBlock
		if err := json.Unmarshal([]byte(raw), &res); err != nil {
			return st, false, fmt.Errorf("tool_search_tool_result: %w", err)
		}
		st.ID, st.Result = res.ToolUseID, true
		for _, ref := range res.Content.ToolReferences {
			st.Tools = append(st.Tools, ref.ToolName)
		}
		return st, true, nil
	}
	return st, false, nil
}

// withInput returns a streamed server_tool_use block, started with an empty input, with the input
// its deltas brought.
func withInput(start string, input []byte) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(start), &fields); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, input); err != nil {
		return "", fmt.Errorf("input is not valid JSON: %w", err)
	}
	fields["input"] = buf.Bytes()
	out, err := json.Marshal(fields)
	return string(out), err
}

// countSearches counts the tool searches among server tool steps.
func countSearches(steps []chat.ServerTool) int64 {
	var n int64
	for _, st := range steps {
		if !st.Result {
			n++
		}
	}
	return n
}

// deferred reports whether a tool is sent with defer_loading.
func deferred(t sdk.ToolUnionParam) bool {
	return t.OfTool != nil && t.OfTool.DeferLoading.Value
}
