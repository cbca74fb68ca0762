// Package augment adds model-filled arguments to tools without changing them: the model is asked
// for extra fields (its reasoning, a confidence, an agent id), which are handed to a consumer and
// taken out before the tool runs.
//
// Uses include capturing why the model calls a tool, extracting facts for long-term memory,
// collecting analytics on intent, and passing coordination signals between agents. The extra
// fields are the fields of a struct type T, described like any tool input (json and jsonschema
// tags), and are listed before the tool's own parameters, so a model writing arguments in order
// states its reasoning before it acts on it.
//
//	type Thinking struct {
//		InnerThought string `json:"innerThought" jsonschema:"Your reasoning for calling this tool"`
//		Confidence   string `json:"confidence,omitempty" jsonschema:"low, medium or high"`
//	}
//
//	tools, err := augment.Tools(myTools, func(ctx context.Context, e augment.Event[Thinking]) error {
//		slog.Info("tool call", "tool", e.Definition.Name, "why", e.Args.InnerThought)
//		return nil
//	})
//
// A wrapped tool keeps the name, description and metadata (return-direct, timeout, sequential) of
// the tool it wraps.
package augment
