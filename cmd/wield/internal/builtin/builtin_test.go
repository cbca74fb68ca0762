package builtin

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/gen"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

var lisbon = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Lisbon")
	if err != nil {
		panic(err)
	}
	return loc
}()

func fixed(t time.Time) func() time.Time { return func() time.Time { return t } }

// TestGeneratedFileIsCurrent fails when wield_tools.go no longer matches the source: run
// go generate ./cmd/wield/... after changing the tools.
func TestGeneratedFileIsCurrent(t *testing.T) {
	testenv.Generated(t, gen.DefaultOutput, func() ([]byte, error) { return gen.Source(gen.Config{Dir: "."}) })
}

func TestTools(t *testing.T) {
	d := &DateTime{Now: fixed(time.Date(2025, 10, 20, 14, 3, 11, 0, time.UTC)), Location: lisbon}
	tools, err := d.Tools()
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]tool.Definition{}
	for _, tl := range tools {
		defs[tl.Definition().Name] = tl.Definition()
	}
	if len(defs) != 2 || !strings.HasPrefix(defs["getCurrentDateTime"].Description, "Gets the current date and time in the user's time zone") ||
		!strings.Contains(string(defs["setAlarm"].InputSchema), "ISO-8601") {
		t.Fatalf("definitions: %+v", defs)
	}
	out, err := tools[0].Call(t.Context(), "{}")
	if err != nil {
		t.Fatal(err)
	}
	if want := "2025-10-20T15:03:11+01:00 (Monday, time zone Europe/Lisbon)"; out != want {
		t.Fatalf("getCurrentDateTime = %q, want %q", out, want)
	}
}

// The tools declare their MCP hints: the clock only reads; an alarm adds, destroys nothing, and
// stays in the process.
func TestToolHints(t *testing.T) {
	tools, err := (&DateTime{}).Tools()
	if err != nil {
		t.Fatal(err)
	}
	hints := map[string]string{}
	for _, tl := range tools {
		m := tl.Metadata()
		show := func(b *bool) string {
			if b == nil {
				return "unknown"
			}
			return strconv.FormatBool(*b)
		}
		hints[tl.Definition().Name] = fmt.Sprintf("readOnly=%t destructive=%s idempotent=%t openWorld=%s approval=%t",
			m.ReadOnly, show(m.Destructive), m.Idempotent, show(m.OpenWorld), m.RequiresApproval)
	}
	want := map[string]string{
		"getCurrentDateTime": "readOnly=true destructive=unknown idempotent=false openWorld=false approval=false",
		"setAlarm":           "readOnly=false destructive=false idempotent=false openWorld=false approval=false",
	}
	if !maps.Equal(hints, want) {
		t.Errorf("hints %v, want %v", hints, want)
	}
}

func TestSetAlarm(t *testing.T) {
	now := time.Date(2025, 10, 20, 14, 0, 0, 0, lisbon)
	tests := []struct {
		in      AlarmRequest
		want    string
		wantErr string
	}{
		{AlarmRequest{Time: "2025-10-20T14:10:00"}, "Alarm set for 2025-10-20T14:10:00+01:00, in 10m0s.", ""},
		{AlarmRequest{Time: "2025-10-20T14:10"}, "Alarm set for 2025-10-20T14:10:00+01:00, in 10m0s.", ""},
		{AlarmRequest{Time: " 2025-10-21T07:30:00Z ", Label: "wake up"}, "Alarm set for 2025-10-21T07:30:00Z (wake up), in 18h30m0s.", ""},
		{AlarmRequest{Time: "2025-10-25T14:00:00"}, "Alarm set for 2025-10-25T14:00:00+01:00, in 5 days.", ""},
		{AlarmRequest{Time: "2999-01-01T07:00:00"}, "Alarm set for 2999-01-01T07:00:00Z, in about 974 years.", ""},
		{AlarmRequest{Time: "2025-10-20T13:59:59"}, "", "is not in the future"},
		{AlarmRequest{Time: "tomorrow at 7"}, "", `time "tomorrow at 7" is not in ISO-8601 format`},
		{AlarmRequest{}, "", "time is empty"},
	}
	for _, tt := range tests {
		d := &DateTime{Now: fixed(now), Location: lisbon}
		got, err := d.SetAlarm(t.Context(), tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SetAlarm(%+v) error %v, want %q", tt.in, err, tt.wantErr)
			}
			if len(d.Pending()) != 0 {
				t.Errorf("a refused alarm is pending")
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("SetAlarm(%+v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if p := d.Pending(); len(p) != 1 || p[0].Label != tt.in.Label {
			t.Errorf("pending %v", p)
		}
	}
}

func TestAlarmRings(t *testing.T) {
	rang := make(chan Alarm, 1)
	// The clock stands 20 ms before the alarm whenever SetAlarm reads it: a loaded machine's
	// scheduling delay cannot put the alarm in the past.
	at := time.Now().Add(time.Hour)
	d := &DateTime{OnAlarm: func(a Alarm) { rang <- a }, Now: func() time.Time { return at.Add(-20 * time.Millisecond) }}
	if _, err := d.SetAlarm(context.Background(), AlarmRequest{Time: at.Format(time.RFC3339Nano), Label: "tea"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SetAlarm(context.Background(), AlarmRequest{Time: at.Add(time.Hour).Format(time.RFC3339Nano), Label: "later"}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-rang:
		if a.Label != "tea" {
			t.Fatalf("rang %+v", a)
		}
	case <-time.After(time.Minute):
		t.Fatal("the alarm never rang")
	}
	if p := d.Pending(); len(p) != 1 || p[0].Label != "later" {
		t.Fatalf("pending after ringing: %+v", p)
	}
	d.Stop()
}
