package openai

import (
	"fmt"

	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/tool"
)

// toolSet holds the tools of one request, prepared for the API.
type toolSet struct {
	list []preparedTool
	// byName finds a tool by its wire name, the name the API knows.
	byName map[string]*preparedTool
	// names maps the request's tool names to wire names the API accepts, and back.
	names *toolname.Map
	// search names the client's search tool of a client tool search, whose calls come as
	// tool_search_call items.
	search string
}

type preparedTool struct {
	// name is the wire name.
	name, description string
	schema            toolSchema
}

// prepareTools reads the tools' definitions and prepares their schemas, under the wire names of
// names.
func prepareTools(tools []tool.Tool, strict bool, names *toolname.Map) (toolSet, error) {
	ts := toolSet{byName: make(map[string]*preparedTool, len(tools)), names: names}
	for i, t := range tools {
		if t == nil {
			return toolSet{}, fmt.Errorf("openai: tool %d is nil", i)
		}
		def := t.Definition()
		if def.Name == "" {
			return toolSet{}, fmt.Errorf("openai: tool %d has no name", i)
		}
		wire := names.Wire(def.Name)
		if _, dup := ts.byName[wire]; dup {
			return toolSet{}, fmt.Errorf("openai: two tools are named %q", def.Name)
		}
		schema, err := prepareSchema(def.InputSchema, strict)
		if err != nil {
			return toolSet{}, fmt.Errorf("openai: tool %q: %w", def.Name, err)
		}
		ts.list = append(ts.list, preparedTool{name: wire, description: def.Description, schema: schema})
		ts.byName[wire] = nil
	}
	for i := range ts.list {
		ts.byName[ts.list[i].name] = &ts.list[i]
	}
	return ts, nil
}

// call returns the chat name and the cleaned arguments of a call the API made under a wire name.
func (ts toolSet) call(wire, args string) (name, cleaned string) {
	return ts.names.User(wire), ts.clean(wire, args)
}

// needsCleaning reports whether the tool of that wire name was sent in strict mode with optional properties
// made nullable, so that its arguments need the nulls dropped.
func (ts toolSet) needsCleaning(name string) bool {
	t := ts.byName[name]
	return t != nil && t.schema.original != nil
}

// anyNeedsCleaning reports whether a call of some tool of the set may need its nulls dropped.
func (ts toolSet) anyNeedsCleaning() bool {
	for i := range ts.list {
		if ts.list[i].schema.original != nil {
			return true
		}
	}
	return false
}

// clean returns the arguments of a call of the tool of that wire name as the tool expects them.
func (ts toolSet) clean(name, args string) string {
	if !ts.needsCleaning(name) {
		return args
	}
	return dropNulls(args, ts.byName[name].schema.original)
}

// checkChoice reports a ToolChoice naming a tool the request does not offer (or demanding a call
// without tools), which the API would reject.
func (ts toolSet) checkChoice(choice string) error {
	switch choice {
	case "", "auto", "none":
		return nil
	case "required":
		if len(ts.list) == 0 {
			return fmt.Errorf("openai: ToolChoice %q without tools", choice)
		}
		return nil
	}
	if ts.byName[ts.names.Wire(choice)] == nil {
		return fmt.Errorf("openai: ToolChoice %q names no tool of the request", choice)
	}
	return nil
}
