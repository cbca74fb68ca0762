package gemini

import "testing"

// This provider has no native tool search: a request asking for one is refused, called or
// streamed, before anything is sent, so deferred tools are never sent in full unnoticed.
func TestToolSearchRefused(t *testing.T) { target.ToolSearchRefused(t) }
