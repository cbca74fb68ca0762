// Package tool defines what a tool is for wield: a [Definition] the model reads (name,
// description, JSON Schema of the input), [Metadata] the runtime reads (return-direct, timeout,
// sequential execution) and a Call that takes the model's JSON arguments and returns the text
// sent back to the model.
//
// Tools are usually built from Go code: [Func] turns a typed function into a tool with an
// inferred, validated input schema, [Methods] turns the exported methods of a value into tools,
// and [New] wraps a raw JSON Schema and a handler for tools known only at run time (MCP-style).
//
// Tool context ([WithContext], [ContextFrom]) carries application data such as a tenant id to the
// tool without ever sending it to the model.
//
// This package is the leaf of wield: it imports no other wield package.
package tool
