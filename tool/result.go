package tool

import (
	"context"
	"strings"

	"github.com/wield-ai/wield/content"
)

// Result is what a tool call gives the model: Text, then Parts (images, documents, audio, more
// text) in order. A tool built with [Func], [Methods] or [New] returns one by returning a Result,
// a [content.Part] or a []content.Part; every other result becomes Text.
type Result struct {
	Text  string
	Parts []content.Part
}

// PartsTool is a [Tool] whose results may carry parts beside text. [Invoke] calls CallParts
// instead of Call when a tool has it; Call then gives the same result as text, with each media
// part described in a short line. Tools built by [Func], [Methods] and [New] are PartsTools.
type PartsTool interface {
	Tool
	CallParts(ctx context.Context, args string) (Result, error)
}

// String renders r as text, for callers that can only take text: the text parts as they are,
// each media part as a short description such as "[image image/png 34 KB]".
func (r Result) String() string {
	if len(r.Parts) == 0 {
		return r.Text
	}
	var b strings.Builder
	b.WriteString(r.Text)
	for _, p := range r.Parts {
		if p.Kind != content.KindText && b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// HasMedia reports whether r carries a part that is not text.
func (r Result) HasMedia() bool {
	for _, p := range r.Parts {
		if p.Kind != content.KindText {
			return true
		}
	}
	return false
}
