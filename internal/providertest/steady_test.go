//go:build unix

package providertest

import (
	"net/http"
	"testing"
)

func TestVerdict(t *testing.T) {
	tests := []struct {
		name  string
		v     Verdict
		valid bool
		rules string
	}{
		{"valid", Verdict{Status: 200, Header: http.Header{"X-Steady-Request-Valid": {"true"}}}, true, ""},
		{"errors in the body", Verdict{Status: 400, Header: http.Header{"X-Steady-Request-Valid": {"false"}},
			Body: []byte(`{"steady":{"errors":[{"code":"type","path":"/temperature","message":"expected number"},{"code":"required","path":"/model","message":"missing"}]}}`)},
			false, "\n  type at /temperature: expected number\n  required at /model: missing"},
		{"errors in headers", Verdict{Status: 400, Header: http.Header{
			"X-Steady-Error-2": {"b"}, "X-Steady-Error-1": {"a", "c"}, "X-Other": {"x"}}, Body: []byte(`not json`)},
			false, "\n  X-Steady-Error-1: a, c\n  X-Steady-Error-2: b"},
		{"nothing to go on", Verdict{Status: 400, Body: []byte("bad request")}, false, "bad request"},
		{"valid header on a 400", Verdict{Status: 400, Header: http.Header{"X-Steady-Request-Valid": {"true"}}}, false, ""},
	}
	for _, tt := range tests {
		if got := tt.v.Valid(); got != tt.valid {
			t.Errorf("%s: Valid() = %v", tt.name, got)
		}
		if got := tt.v.Rules(); got != tt.rules {
			t.Errorf("%s: Rules() = %q, want %q", tt.name, got, tt.rules)
		}
	}
}
