package testenv

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// JSON returns v marshalled, failing t when it cannot be.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// WantError checks a table row's error: with want empty, err must be nil; otherwise err must
// contain want. It reports whether the row wanted an error, so the row can return before reading
// a result that was not made.
func WantError(t testing.TB, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one containing %q", err, want)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}

// Within returns what f returns, failing t when f has not returned after d: what a test waits
// for must not hang where it should return. f's goroutine is left to end on its own.
func Within[T any](t testing.TB, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s has not returned after %s", what, d)
		panic("unreachable")
	}
}
