// Package wire holds what the providers do alike on their APIs' wire, whatever SDK carries the
// request: reading a prompt's options and the tool-call input an answer holds.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wield-ai/wield/chat"
)

// Options returns the options of p, the zero options when it has none. A nil p is an error
// naming the provider: there is nothing to send.
func Options(provider string, p *chat.Prompt) (*chat.Options, error) {
	if p == nil {
		return nil, errors.New(provider + ": nil prompt")
	}
	if p.Options == nil {
		return &chat.Options{}, nil
	}
	return p.Options, nil
}

// CompactObject returns a tool call's input, JSON text that must be an object, as compact JSON
// text; an absent input (nothing, or null) is "{}", the object without arguments.
func CompactObject(data []byte) (string, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return "{}", nil
	}
	if data[0] != '{' {
		return "", fmt.Errorf("input %.50q is not a JSON object", data)
	}
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := json.Compact(&buf, data); err != nil {
		return "", fmt.Errorf("input is not valid JSON: %w", err)
	}
	return buf.String(), nil
}
