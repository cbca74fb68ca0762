package client

import (
	"fmt"

	"github.com/wield-ai/wield/tool"
)

// methodTools turns a value's methods into tools. A value none of whose methods can be a tool
// is an error: it is almost certainly not what the caller meant to pass.
func methodTools(v any) ([]tool.Tool, error) {
	tools, err := tool.Methods(v)
	if err != nil {
		return nil, err
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("a value of type %T has no methods that can be tools", v)
	}
	return tools, nil
}
