package chat

import (
	"encoding/json"
	"maps"

	"github.com/wield-ai/wield/tool"
)

// Options are the settings of one model request: model settings and the tools offered to the
// model. They hold only what a provider reads: tool names to resolve and the tool context are
// the tool-calling runtime's business, and travel on its own request.
//
// A client has default options and each call may add its own; [Merge] combines them.
type Options struct {
	// Model is the provider's model name; empty means the provider's configured default.
	Model string
	// Temperature, TopP and Seed are sampling settings; nil leaves the provider's default.
	Temperature *float64
	TopP        *float64
	Seed        *int64
	// MaxTokens caps the tokens generated; zero leaves the provider's default.
	MaxTokens int
	// Stop lists sequences that end generation.
	Stop []string
	// N asks for several generations where the provider supports it; zero means one.
	N int

	// Tools are offered to the model and executed when it calls them.
	Tools []tool.Tool
	// ToolChoice steers tool use: "" or "auto" lets the model decide, "none" forbids calls,
	// "required" demands one, and any other value is the name of the tool the model must call.
	ToolChoice string
	// ParallelToolCalls, when set, allows or forbids several calls in one response.
	ParallelToolCalls *bool
	// ToolSearch, when set, has the provider send the tools deferred and search them natively
	// (see [ToolSearch]); a provider without native tool search refuses the request.
	ToolSearch *ToolSearch

	// ResponseFormat asks for a JSON answer matching a schema, where the provider supports it.
	ResponseFormat *ResponseFormat

	// Extra carries provider-specific settings. Each provider documents the keys it reads; keys
	// it does not know are ignored, never dropped from the options.
	Extra map[string]any
}

// ResponseFormat asks the model for JSON output matching Schema.
type ResponseFormat struct {
	// Name identifies the schema to providers that require a name.
	Name string
	// Schema is a JSON Schema for the answer.
	Schema json.RawMessage
	// Strict asks providers that support it to enforce the schema exactly.
	Strict bool
}

// Merge returns base with override applied, leaving both unchanged:
//   - settings (Model, Temperature, TopP, Seed, MaxTokens, Stop, N, ToolChoice,
//     ParallelToolCalls, ToolSearch, ResponseFormat) take override's value when it sets one;
//   - Tools are base's followed by override's (duplicate names are reported when the tools are
//     resolved, not here);
//   - Extra is merged key by key, override's keys winning.
//
// Either argument may be nil.
func Merge(base, override *Options) *Options {
	if base == nil && override == nil {
		return &Options{}
	}
	if base == nil {
		return override.Clone()
	}
	out := base.Clone()
	if override == nil {
		return out
	}
	if override.Model != "" {
		out.Model = override.Model
	}
	if override.Temperature != nil {
		out.Temperature = override.Temperature
	}
	if override.TopP != nil {
		out.TopP = override.TopP
	}
	if override.Seed != nil {
		out.Seed = override.Seed
	}
	if override.MaxTokens != 0 {
		out.MaxTokens = override.MaxTokens
	}
	if override.Stop != nil {
		out.Stop = append([]string(nil), override.Stop...)
	}
	if override.N != 0 {
		out.N = override.N
	}
	if override.ToolChoice != "" {
		out.ToolChoice = override.ToolChoice
	}
	if override.ParallelToolCalls != nil {
		out.ParallelToolCalls = override.ParallelToolCalls
	}
	if override.ToolSearch != nil {
		out.ToolSearch = override.ToolSearch.Clone()
	}
	if override.ResponseFormat != nil {
		out.ResponseFormat = override.ResponseFormat
	}
	out.Tools = append(out.Tools, override.Tools...)
	out.Extra = mergeMaps(out.Extra, override.Extra)
	return out
}

func mergeMaps(base, override map[string]any) map[string]any {
	if len(override) == 0 {
		return base
	}
	out := make(map[string]any, len(base)+len(override))
	maps.Copy(out, base)
	maps.Copy(out, override)
	return out
}

// Clone returns a copy of o whose slices and maps can be changed without affecting o. Tools
// themselves are shared. Clone of nil is an empty Options.
func (o *Options) Clone() *Options {
	if o == nil {
		return &Options{}
	}
	c := *o
	c.Stop = cloneSlice(o.Stop)
	c.Tools = cloneSlice(o.Tools)
	c.ToolSearch = o.ToolSearch.Clone()
	c.Extra = maps.Clone(o.Extra)
	return &c
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// Ptr returns a pointer to v, for the optional settings of [Options].
func Ptr[T any](v T) *T { return &v }
