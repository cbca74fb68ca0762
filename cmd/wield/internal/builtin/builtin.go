// Package builtin holds the tools the wield command offers without any configuration: the
// current date and time in the user's time zone, and alarms.
package builtin

//go:generate go run github.com/wield-ai/wield/cmd/wield gen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wield-ai/wield/tool"
)

// DateTime gives a model the user's date and time and lets it set alarms. Alarms ring through
// OnAlarm while the process runs. The zero value uses the real clock and the local time zone.
type DateTime struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Location is the user's time zone; nil means time.Local.
	Location *time.Location
	// OnAlarm is called, from its own goroutine, when an alarm's time comes.
	OnAlarm func(Alarm)

	mu     sync.Mutex
	alarms []*Alarm
}

// Alarm is an alarm set through the setAlarm tool.
type Alarm struct {
	// At is when it rings.
	At time.Time
	// Label says what it is for.
	Label string

	timer *time.Timer
	rang  bool
}

// Tools returns the date-time tools of d, with their MCP hints: reading the clock changes
// nothing; setting an alarm adds one without touching the others (so an approval policy that
// asks before destructive calls lets it run), and a second call sets a second alarm. Neither
// reaches beyond the process.
func (d *DateTime) Tools() ([]tool.Tool, error) {
	clock, err := tool.Methods(d, tool.Only("GetCurrentDateTime"), tool.ReadOnly(), tool.OpenWorld(false))
	if err != nil {
		return nil, err
	}
	alarms, err := tool.Methods(d, tool.Only("SetAlarm"), tool.Destructive(false), tool.OpenWorld(false))
	if err != nil {
		return nil, err
	}
	return append(clock, alarms...), nil
}

func (d *DateTime) now() time.Time {
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	loc := d.Location
	if loc == nil {
		loc = time.Local
	}
	return now().In(loc)
}

// GetCurrentDateTime gets the current date and time in the user's time zone, with the day of
// the week.
//
//wield:tool
func (d *DateTime) GetCurrentDateTime() string {
	now := d.now()
	zone := now.Location().String()
	if zone == "Local" {
		zone, _ = now.Zone()
	}
	return fmt.Sprintf("%s (%s, time zone %s)", now.Format(time.RFC3339), now.Weekday(), zone)
}

// AlarmRequest is the input of the setAlarm tool.
type AlarmRequest struct {
	// Time is when the alarm rings, in ISO-8601 format such as 2025-10-21T07:30:00; without a
	// zone offset it is in the user's time zone.
	Time string `json:"time"`
	// Label says what the alarm is for.
	Label string `json:"label,omitempty"`
}

// layouts are the ISO-8601 forms setAlarm accepts.
var layouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"}

// SetAlarm sets a user alarm for the given time.
//
//wield:tool
func (d *DateTime) SetAlarm(ctx context.Context, in AlarmRequest) (string, error) {
	now := d.now()
	at, err := parseTime(strings.TrimSpace(in.Time), now.Location())
	if err != nil {
		return "", err
	}
	if !at.After(now) {
		return "", fmt.Errorf("%s is not in the future (it is now %s)", at.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	a := &Alarm{At: at, Label: in.Label}
	d.mu.Lock()
	d.alarms = append(d.alarms, a)
	if d.OnAlarm != nil {
		ring := d.OnAlarm
		a.timer = time.AfterFunc(at.Sub(now), func() {
			d.mu.Lock()
			a.rang = true
			alarm := *a
			d.mu.Unlock()
			ring(alarm)
		})
	}
	d.mu.Unlock()
	msg := "Alarm set for " + at.Format(time.RFC3339)
	if in.Label != "" {
		msg += " (" + in.Label + ")"
	}
	return msg + ", " + until(now, at) + ".", nil
}

// until says how far at is from now: "in 10m0s", "in 3 days", "in about 974 years".
func until(now, at time.Time) string {
	if years := at.Year() - now.Year(); years > 1 {
		return fmt.Sprintf("in about %d years", years)
	}
	d := at.Sub(now)
	if d < 48*time.Hour {
		return "in " + d.Round(time.Second).String()
	}
	return fmt.Sprintf("in %d days", int(d.Hours()/24))
}

func parseTime(s string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("time is empty; give it in ISO-8601 format, such as 2025-10-21T07:30:00")
	}
	for _, layout := range layouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q is not in ISO-8601 format, such as 2025-10-21T07:30:00 or 2025-10-21T07:30:00+02:00", s)
}

// Pending returns the alarms that have not rung yet, soonest first.
func (d *DateTime) Pending() []Alarm {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Alarm
	for _, a := range d.alarms {
		if !a.rang {
			out = append(out, Alarm{At: a.At, Label: a.Label})
		}
	}
	slices.SortFunc(out, func(a, b Alarm) int { return a.At.Compare(b.At) })
	return out
}

// Stop cancels the alarms that have not rung.
func (d *DateTime) Stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range d.alarms {
		if a.timer != nil {
			a.timer.Stop()
		}
	}
}
