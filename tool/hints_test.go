package tool

import (
	"context"
	"testing"
)

func TestApprovalAndHintOptions(t *testing.T) {
	fn := func(context.Context, struct{}) (string, error) { return "", nil }
	plain := Must(Func("plain", "", fn))
	if m := plain.Metadata(); m.RequiresApproval || m.ReadOnly || m.Destructive != nil || m.Idempotent || m.OpenWorld != nil {
		t.Fatalf("metadata without options = %+v", m)
	}
	marked := Must(Func("marked", "", fn, RequiresApproval(), ReadOnly(), Destructive(false), Idempotent(), OpenWorld(true), Sequential()))
	m := marked.Metadata()
	if !m.RequiresApproval || !m.ReadOnly || m.Destructive == nil || *m.Destructive || !m.Idempotent || m.OpenWorld == nil || !*m.OpenWorld || !m.Sequential {
		t.Fatalf("metadata = %+v", m)
	}
	// Each tool gets its own hint values.
	other := Must(Func("other", "", fn, Destructive(true)))
	if *other.Metadata().Destructive != true || *marked.Metadata().Destructive != false {
		t.Fatal("hint values shared between tools")
	}
}
