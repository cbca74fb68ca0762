package client

import "github.com/wield-ai/wield/tool"

// methodTools turns a value's methods into tools.
func methodTools(v any) ([]tool.Tool, error) { return tool.Methods(v) }
