package ollama

import (
	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/tool"
)

// promptNames maps the tool names of a prompt to wire names and back. It depends only on the
// prompt, so the request and the decoding of its answer build the same Map.
func promptNames(p *chat.Prompt) *toolname.Map {
	var tools []tool.Tool
	if p.Options != nil {
		tools = p.Options.Tools
	}
	return toolname.ForPrompt(toolname.Ollama, tools, p.Messages)
}

// wireNames gives the request's tools and the tool calls and tool messages of its history the
// wire names of names.
func wireNames(req *api.ChatRequest, names *toolname.Map) {
	if !names.Renames() {
		return
	}
	for i := range req.Tools {
		req.Tools[i].Function.Name = names.Wire(req.Tools[i].Function.Name)
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		for j := range m.ToolCalls {
			m.ToolCalls[j].Function.Name = names.Wire(m.ToolCalls[j].Function.Name)
		}
		if m.ToolName != "" {
			m.ToolName = names.Wire(m.ToolName)
		}
	}
}
