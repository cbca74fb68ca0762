// Package tool defines what a tool is for wield: a [Definition] the model reads (name,
// description, JSON Schema of the input), [Metadata] the runtime reads (return-direct, timeout,
// sequential execution) and a Call that takes the model's JSON arguments and returns the text
// sent back to the model.
//
// # Building tools
//
// Tools are usually built from Go code: [Func] turns a typed function into a tool with an
// inferred input schema, [Methods] turns the exported methods of a value into tools, and [New]
// wraps a raw JSON Schema and a [Handler] for tools known only at run time (MCP-style, or
// placeholders). Options set return-direct, a timeout, sequential execution, a result converter
// or an explicit input schema; each constructor takes only the options that apply to it
// ([Option] for all, [FuncOption], [MethodsOption], [NewOption]).
//
// Method tools are the methods a type registers with [RegisterMethods], with their names and
// descriptions, and parameter docs from [RegisterType]; `wield gen`, a go generate step, writes
// those calls from `//wield:tool` directives and doc comments. The [Only] option lists methods
// by hand instead. No other method is ever offered to a model.
//
// # Calling tools
//
// [Invoke] is how a runtime calls a tool: it applies the tool's timeout, turns a panic into a
// [*PanicError] and gives up on a tool that ignores its context. The tool loop and the MCP
// server call tools through it, so these rules hold once, whoever calls.
//
// # Schemas and validation
//
// [SchemaFor] and [SchemaOf] infer JSON Schema 2020-12 from Go types (as
// github.com/google/jsonschema-go values, the types the MCP Go SDK uses), cached per type; the
// rules are on [SchemaOf]. Every call's arguments are validated against the tool's schema, and
// defaults filled in, before the tool runs; bad arguments come back as an [*ArgumentError]
// whose text tells the model what to correct, such as
//
//	invalid arguments: /unit: "K" is not one of ["C","F"]
//
// A Go type has one plan for reading JSON, shared by every tool, entity and augmentation of
// the type: the schema, its validation (the JSON text checked in a single pass for the common
// keywords, other schemas handed to jsonschema-go, whose verdicts it matches), defaults and
// decoding by the same rules (a duration as "1h30m"). Arguments are decoded and results
// encoded with the encoding/json/v2 prototype (github.com/go-json-experiment/json), so a
// validated call costs less than plain encoding/json without validation.
//
// # Results
//
// A tool's result becomes text through a [ResultConverter], by default [DefaultConverter]:
// strings as they are, other values as JSON, no result as [Done].
//
// # Context
//
// Tool context ([WithContext], [ContextFrom]) carries application data such as a tenant id to the
// tool without ever sending it to the model; [CallFrom] tells a tool which model call it serves.
// Errors marked with [Fatal] end the turn instead of going back to the model.
//
// This package is the leaf of wield: it imports no other wield package but the internal schema
// engine that infers, validates and decodes.
package tool
