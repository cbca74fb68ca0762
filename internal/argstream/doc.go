// Package argstream holds the test that each provider's recorded tool-call streams reach a
// client's stream as ToolArguments events, in order. It has no code of its own.
package argstream
