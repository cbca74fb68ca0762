package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/examples/internal/exampletest"
	"github.com/wield-ai/wield/internal/gen"
	"github.com/wield-ai/wield/internal/testenv"
)

func TestDateTime(t *testing.T) {
	loc := time.FixedZone("PDT", -7*60*60)
	tools := &DateTimeTools{
		Now:      func() time.Time { return time.Date(2015, 10, 20, 16, 29, 0, 0, loc) },
		Location: loc,
	}
	m := scriptedModel()
	out := exampletest.Output(t, func(w io.Writer) error { return run(t.Context(), m, tools, w) })
	want := "Tomorrow is 2015-10-21.\nYour alarm is set for 16:39, 10 minutes from now.\nalarm: 2015-10-20T16:39:00-07:00\n"
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
	// The model was offered both tools, described.
	p := m.Prompt(0)
	var names []string
	for _, tl := range p.Options.Tools {
		d := tl.Definition()
		names = append(names, d.Name)
		if d.Name == "setAlarm" && (!strings.Contains(d.Description, "ISO-8601") || !strings.Contains(string(d.InputSchema), "Time in ISO-8601 format")) {
			t.Fatalf("setAlarm definition = %+v", d)
		}
	}
	if !slices.Equal(names, []string{"getCurrentDateTime", "setAlarm"}) {
		t.Fatalf("tools = %v", names)
	}
	// The model received the tool results.
	last := func(p *chat.Prompt) chat.Message { return p.Messages[len(p.Messages)-1] }
	if r := last(m.Prompt(1)).ToolResults; len(r) != 1 || r[0].Content != "2015-10-20T16:29:00-07:00" {
		t.Fatalf("date result = %+v", r)
	}
	if r := last(m.Prompt(4)).ToolResults; len(r) != 1 || r[0].Content != "Alarm set for 2015-10-20T16:39:00-07:00" {
		t.Fatalf("alarm result = %+v", r)
	}
	if n := len(m.Prompt(4).Messages); n != 5 {
		t.Fatalf("the last call of the alarm turn saw %d messages, want user + 2 calls + 2 results", n)
	}
	if m.Remaining() != 0 {
		t.Fatalf("%d scripted replies unused", m.Remaining())
	}
}

func TestSetAlarmRejectsBadTime(t *testing.T) {
	if _, err := (&DateTimeTools{}).SetAlarm(AlarmRequest{Time: "tomorrow"}); err == nil || !strings.Contains(err.Error(), "ISO-8601") {
		t.Fatalf("err = %v", err)
	}
}

// TestGeneratedFileIsCurrent fails when wield_tools.go no longer matches the tools' source: run
// go generate ./examples/datetime after changing them.
func TestGeneratedFileIsCurrent(t *testing.T) {
	testenv.Generated(t, gen.DefaultOutput, func() ([]byte, error) { return gen.Source(gen.Config{Dir: "."}) })
}
