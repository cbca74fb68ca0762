package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// searchItem is the part of a tool_search_call or tool_search_output item this package reads.
type searchItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	CallID    json.RawMessage `json:"call_id"`
	Execution string          `json:"execution"`
	Status    string          `json:"status"`
	Arguments json.RawMessage `json:"arguments"`
	Tools     []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

// callID returns the item's call id: absent, null (a hosted search's) or a string.
func (it *searchItem) callID() (param.Opt[string], error) {
	switch s := string(it.CallID); s {
	case "":
		return param.Opt[string]{}, nil
	case "null":
		return param.Null[string](), nil
	}
	var id string
	if err := json.Unmarshal(it.CallID, &id); err != nil {
		return param.Opt[string]{}, fmt.Errorf("call_id %s is not a string", it.CallID)
	}
	return oai.String(id), nil
}

const (
	executionClient = "client"
	executionServer = "server"
)

// responsesToolSearch applies the prompt's tool search to a Responses request whose tools and
// input are built: it marks the deferred function tools defer_loading and adds the tool_search
// tool, hosted (ToolSearchServer) or with the client's search tool's description and parameters
// (ToolSearchClient), whose calls and results in the input become tool_search_call and
// tool_search_output items. Anthropic's kinds (regex, BM25) are not offered. Without a hosted
// search, the input keeps no hosted search's items.
func responsesToolSearch(params *responses.ResponseNewParams, p *chat.Prompt, o *chat.Options, ts *toolSet) error {
	s := o.ToolSearch
	if !s.Server() {
		dropServerItems(params)
	}
	if s == nil {
		return nil
	}
	if err := s.Check(o.Tools); err != nil {
		return fmt.Errorf("openai: %w", err)
	}
	switch s.Kind {
	case chat.ToolSearchRegex, chat.ToolSearchBM25:
		return fmt.Errorf("openai: tool search %q: %w by the Responses API, whose hosted search is %q", s.Kind, chat.ErrToolSearchUnsupported, chat.ToolSearchServer)
	}
	loaded := make(map[string]bool, len(s.Loaded)+1)
	for _, n := range s.Loaded {
		loaded[ts.names.Wire(n)] = true
	}
	if c := params.ToolChoice.OfFunctionTool; c != nil {
		loaded[c.Name] = true
	}
	search := &responses.ToolSearchToolParam{Execution: responses.ToolSearchToolExecutionServer}
	if s.Kind == chat.ToolSearchClient {
		ts.search = s.Tool
		wire := ts.names.Wire(s.Tool)
		def, err := toolDefinition(o.Tools, s.Tool)
		if err != nil {
			return err
		}
		search.Execution = responses.ToolSearchToolExecutionClient
		if def.Description != "" {
			search.Description = oai.String(def.Description)
		}
		if len(def.InputSchema) > 0 {
			search.Parameters = json.RawMessage(def.InputSchema)
		}
		kept := params.Tools[:0]
		for _, t := range params.Tools {
			if f := t.OfFunction; f == nil || f.Name != wire {
				kept = append(kept, t)
			}
		}
		params.Tools = kept
		if err := clientSearchItems(params, p.Messages, s.Tool, wire, ts); err != nil {
			return err
		}
	}
	for _, t := range params.Tools {
		if f := t.OfFunction; f != nil && !loaded[f.Name] {
			f.DeferLoading = oai.Bool(true)
		}
	}
	params.Tools = append(params.Tools, responses.ToolUnionParam{OfToolSearch: search})
	return nil
}

// toolDefinition returns the definition of the tool named.
func toolDefinition(tools []tool.Tool, name string) (tool.Definition, error) {
	for _, t := range tools {
		if t != nil {
			if d := t.Definition(); d.Name == name {
				return d, nil
			}
		}
	}
	return tool.Definition{}, fmt.Errorf("openai: no tool named %q", name)
}

// clientSearchItems turns the function calls of the client's search tool in the input, and their
// outputs, into tool_search_call and tool_search_output items: the outputs load the definitions
// of the deferred tools each search found. A failed search, or one whose tools the request no
// longer has, loads none.
func clientSearchItems(params *responses.ResponseNewParams, msgs []chat.Message, name, wire string, ts *toolSet) error {
	results := map[string]chat.ToolResult{}
	for _, m := range msgs {
		for _, r := range m.ToolResults {
			if r.Name == name {
				results[r.ID] = r
			}
		}
	}
	input := params.Input.OfInputItemList
	calls := map[string]bool{}
	for i := range input {
		fc := input[i].OfFunctionCall
		if fc == nil || fc.Name != wire {
			continue
		}
		if !json.Valid([]byte(fc.Arguments)) {
			return fmt.Errorf("openai: call %s of the search tool %q: arguments are not JSON: %.100q", fc.CallID, name, fc.Arguments)
		}
		calls[fc.CallID] = true
		input[i] = responses.ResponseInputItemUnionParam{OfToolSearchCall: &responses.ResponseInputItemToolSearchCallParam{
			ID: fc.ID, CallID: oai.String(fc.CallID), Execution: executionClient, Status: "completed",
			Arguments: json.RawMessage(fc.Arguments),
		}}
	}
	for i := range input {
		out := input[i].OfFunctionCallOutput
		if out == nil || !calls[out.CallID.Value] {
			continue
		}
		item := &responses.ResponseToolSearchOutputItemParam{
			CallID: out.CallID, Execution: responses.ResponseToolSearchOutputItemParamExecutionClient,
			Status: responses.ResponseToolSearchOutputItemParamStatusCompleted,
			Tools:  []responses.ResponseToolSearchOutputItemParamToolUnion{},
		}
		if r := results[out.CallID.Value]; !r.IsError {
			names, err := chat.ParseToolSearchResult(r.Text())
			if err != nil {
				return fmt.Errorf("openai: result %s of the search tool %q: %w", r.ID, name, err)
			}
			for _, n := range names {
				if t := ts.byName[ts.names.Wire(n)]; t != nil {
					item.Tools = append(item.Tools, responses.ResponseToolSearchOutputItemParamToolUnion{OfFunction: t.deferred()})
				}
			}
		}
		input[i] = responses.ResponseInputItemUnionParam{OfToolSearchOutput: item}
	}
	return nil
}

// deferred returns the tool's definition as a deferred function tool.
func (t *preparedTool) deferred() *responses.FunctionToolParam {
	fn := &responses.FunctionToolParam{Name: t.name, Parameters: t.schema.params, Strict: oai.Bool(t.schema.strict), DeferLoading: oai.Bool(true)}
	if t.description != "" {
		fn.Description = oai.String(t.description)
	}
	return fn
}

// serverItems returns an assistant message's hosted-search items, as OpenAI sent them, less the
// fields only output items have; other providers' steps are dropped.
func serverItems(m chat.Message) ([]responses.ResponseInputItemUnionParam, error) {
	var out []responses.ResponseInputItemUnionParam
	for _, st := range m.ServerTools {
		if st.Provider != Provider {
			continue
		}
		var it searchItem
		if err := json.Unmarshal(st.Data, &it); err != nil {
			return nil, fmt.Errorf("server tool %s: the item kept is not valid: %w", st.ID, err)
		}
		callID, err := it.callID()
		if err != nil {
			return nil, fmt.Errorf("server tool %s: %w", st.ID, err)
		}
		id := param.Opt[string]{}
		if it.ID != "" {
			id = oai.String(it.ID)
		}
		switch it.Type {
		case "tool_search_call":
			out = append(out, responses.ResponseInputItemUnionParam{OfToolSearchCall: &responses.ResponseInputItemToolSearchCallParam{
				ID: id, CallID: callID, Execution: it.Execution, Status: it.Status, Arguments: it.Arguments}})
		case "tool_search_output":
			var full struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(st.Data, &full); err != nil {
				return nil, fmt.Errorf("server tool %s: the item kept is not valid: %w", st.ID, err)
			}
			item := &responses.ResponseToolSearchOutputItemParam{ID: id, CallID: callID,
				Execution: responses.ResponseToolSearchOutputItemParamExecution(it.Execution),
				Status:    responses.ResponseToolSearchOutputItemParamStatus(it.Status),
				Tools:     make([]responses.ResponseToolSearchOutputItemParamToolUnion, len(full.Tools))}
			for i, raw := range full.Tools {
				// The loaded definitions go back as they came.
				fn := param.Override[responses.FunctionToolParam](raw)
				item.Tools[i] = responses.ResponseToolSearchOutputItemParamToolUnion{OfFunction: &fn}
			}
			out = append(out, responses.ResponseInputItemUnionParam{OfToolSearchOutput: item})
		default:
			return nil, fmt.Errorf("server tool %s: an item of type %q", st.ID, it.Type)
		}
	}
	return out, nil
}

// dropServerItems takes the hosted search's items out of the input of a request that has no
// hosted search to match them.
func dropServerItems(params *responses.ResponseNewParams) {
	input := params.Input.OfInputItemList
	kept := input[:0]
	for _, it := range input {
		if c := it.OfToolSearchCall; c != nil && c.Execution == executionServer {
			continue
		}
		if o := it.OfToolSearchOutput; o != nil && o.Execution == responses.ResponseToolSearchOutputItemParamExecutionServer {
			continue
		}
		kept = append(kept, it)
	}
	params.Input.OfInputItemList = kept
}

// searchStep maps a tool_search_call or tool_search_output output item: a client search's call
// becomes a call of the client's search tool (index is its position among the message's calls),
// a hosted search's items server tools. raw is the item's JSON; an item this package cannot read
// is kept as it came.
func searchStep(raw string, ts toolSet, index int) (call *chat.ToolCall, step *chat.ServerTool) {
	var it searchItem
	if err := json.Unmarshal([]byte(raw), &it); err != nil {
		return nil, &chat.ServerTool{Provider: Provider, Data: json.RawMessage(raw)}
	}
	args := "{}"
	var buf bytes.Buffer
	if len(it.Arguments) > 0 && string(it.Arguments) != "null" && json.Compact(&buf, it.Arguments) == nil {
		args = buf.String()
	}
	if id, _ := it.callID(); it.Type == "tool_search_call" && it.Execution == executionClient && ts.search != "" && id.Valid() {
		return &chat.ToolCall{ID: id.Value, Name: ts.search, Arguments: args, Index: index}, nil
	}
	st := &chat.ServerTool{Provider: Provider, ID: it.ID, Data: json.RawMessage(raw)}
	if it.Type == "tool_search_output" {
		st.Result = true
		for _, t := range it.Tools {
			if t.Name != "" {
				st.Tools = append(st.Tools, ts.names.User(t.Name))
			}
		}
	} else {
		st.Name, st.Arguments = "tool_search", args
	}
	return nil, st
}
