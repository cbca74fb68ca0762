// Package orderedjson decodes JSON with the member order of its objects kept, for the providers that
// rewrite tool schemas before sending them: models read a schema as text, and OpenAI's strict
// mode writes arguments in schema order, so a map, which marshals its keys sorted, would reorder
// what the tool declared. Numbers decode as [encoding/json.Number] so that they are written back
// unchanged.
//
// It also resolves local $ref pointers, over its own values and over those encoding/json decodes
// into any, and keeps a [Budget] for the rewriters that inline them. [Check] holds a
// configuration file to [Bounds] and refuses a key given twice, for the command and mcp.
package orderedjson
