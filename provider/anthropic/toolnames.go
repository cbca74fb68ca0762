package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/toolname"
)

// wireNames gives the request's tools, its tool choice and the tool_use blocks of its history
// names the API accepts (^[a-zA-Z0-9_-]{1,64}$), as names maps them.
func wireNames(params *sdk.MessageNewParams, names *toolname.Map) {
	if !names.Renames() {
		return
	}
	for i := range params.Tools {
		if t := params.Tools[i].OfTool; t != nil {
			t.Name = names.Wire(t.Name)
		}
	}
	if t := params.ToolChoice.OfTool; t != nil {
		t.Name = names.Wire(t.Name)
	}
	for i := range params.Messages {
		for _, b := range params.Messages[i].Content {
			if u := b.OfToolUse; u != nil {
				u.Name = names.Wire(u.Name)
			}
		}
	}
}

// restore gives the tool calls of an answer the tools' own names.
func (r *request) restore(resp *chat.Response, err error) (*chat.Response, error) {
	r.names.Restore(resp)
	return resp, err
}
