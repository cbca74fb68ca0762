// Package exampletest runs the examples in their tests: each example's run function writes what
// the program prints to a writer, and the tests check it.
package exampletest

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/wield-ai/wield/chat"
)

// Output calls run with a writer, fails t if run returns an error, and returns what run wrote.
func Output(t testing.TB, run func(out io.Writer) error) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("%v\noutput so far:\n%s", err, out.String())
	}
	return out.String()
}

// Run is Output for an example whose run function takes the model: it calls run with t's
// context and m.
func Run(t testing.TB, run func(context.Context, chat.Model, io.Writer) error, m chat.Model) string {
	t.Helper()
	return Output(t, func(out io.Writer) error { return run(t.Context(), m, out) })
}
