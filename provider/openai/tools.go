package openai

import (
	"fmt"

	"github.com/wield-ai/wield/tool"
)

// toolSet holds the tools of one request, prepared for the API.
type toolSet struct {
	list   []preparedTool
	byName map[string]*preparedTool
}

type preparedTool struct {
	name, description string
	schema            toolSchema
}

// prepareTools reads the tools' definitions and prepares their schemas.
func prepareTools(tools []tool.Tool, strict bool) (toolSet, error) {
	ts := toolSet{byName: make(map[string]*preparedTool, len(tools))}
	for i, t := range tools {
		if t == nil {
			return toolSet{}, fmt.Errorf("openai: tool %d is nil", i)
		}
		def := t.Definition()
		if def.Name == "" {
			return toolSet{}, fmt.Errorf("openai: tool %d has no name", i)
		}
		if _, dup := ts.byName[def.Name]; dup {
			return toolSet{}, fmt.Errorf("openai: two tools are named %q", def.Name)
		}
		schema, err := prepareSchema(def.InputSchema, strict)
		if err != nil {
			return toolSet{}, fmt.Errorf("openai: tool %q: %w", def.Name, err)
		}
		ts.list = append(ts.list, preparedTool{name: def.Name, description: def.Description, schema: schema})
		ts.byName[def.Name] = nil
	}
	for i := range ts.list {
		ts.byName[ts.list[i].name] = &ts.list[i]
	}
	return ts, nil
}

// needsCleaning reports whether the named tool was sent in strict mode with optional properties
// made nullable, so that its arguments need the nulls dropped.
func (ts toolSet) needsCleaning(name string) bool {
	t := ts.byName[name]
	return t != nil && t.schema.original != nil
}

// clean returns the arguments of a call of the named tool as the tool expects them.
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
	if ts.byName[choice] == nil {
		return fmt.Errorf("openai: ToolChoice %q names no tool of the request", choice)
	}
	return nil
}
