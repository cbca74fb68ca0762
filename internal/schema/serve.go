package schema

import "encoding/json"

// SelfValidating is implemented by tools that validate their own arguments, as every tool the
// tool package builds does. Its parameter type keeps the method private to this module.
type SelfValidating interface {
	ValidatesArguments(Private)
}

// Private is a type only this module can name.
type Private struct{}

// ForServing returns the validator a server checks a tool's arguments with before calling it:
// nil when the tool validates them itself, so that arguments are validated once per call, else
// the compiled schema.
func ForServing(tool any, schema json.RawMessage) (*Validator, error) {
	if _, ok := tool.(SelfValidating); ok {
		return nil, nil
	}
	return Compile(schema)
}
