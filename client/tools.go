package client

import (
	"fmt"

	"github.com/wield-ai/wield/internal/methodtools"
	"github.com/wield-ai/wield/tool"
)

// methodTools turns a value's methods into tools, as [tool.Methods] does. A value none of whose
// methods can be a tool is an error: it is almost certainly not what the caller meant to pass.
//
// It reaches tool.Methods only through the function tool.RegisterMethods installs: a program
// that registers no method tools then does not link the reflection that calls methods by name,
// which would keep every exported method of every type in it (see internal/methodtools). Such
// a program can have no method chosen without tool.Only, which means calling tool.Methods.
func methodTools(v any) ([]tool.Tool, error) {
	methods := methodtools.Get()
	if methods == nil {
		return nil, fmt.Errorf("a value of type %T is not a tool, a tool list or a tool provider, and registers no tool methods: "+
			"mark its tool methods //wield:tool and run wield gen, or pass tool.Methods(v, tool.Only(...))", v)
	}
	got, err := methods(v)
	if err != nil {
		return nil, err
	}
	tools := got.([]tool.Tool)
	if len(tools) == 0 {
		return nil, fmt.Errorf("a value of type %T has no methods that can be tools", v)
	}
	return tools, nil
}
