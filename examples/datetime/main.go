// Command datetime is the quick start of tool calling: DateTimeTools gives the model the
// current date and time (information retrieval) and lets it set an alarm (taking an action).
//
// It runs on a scripted model by default; run(ctx, model, out) takes any chat.Model.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
)

//go:generate go run github.com/wield-ai/wield/cmd/wield gen

// DateTimeTools are tools about the user's date and time. The methods marked //wield:tool are
// its tools; `wield gen` (the go:generate line above) writes wield_tools.go, which registers them
// with their doc comments as descriptions and AlarmRequest's field comments as parameter docs.
type DateTimeTools struct {
	// Now and Location make the tools deterministic in tests; zero values mean the real clock
	// and the local time zone.
	Now      func() time.Time
	Location *time.Location

	mu     sync.Mutex
	alarms []time.Time
}

// AlarmRequest is the input of setAlarm.
type AlarmRequest struct {
	// Time in ISO-8601 format, such as 2015-10-20T16:39:00-07:00.
	Time string `json:"time"`
}

// GetCurrentDateTime gets the current date and time in the user's timezone.
//
//wield:tool
func (d *DateTimeTools) GetCurrentDateTime() string {
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	loc := d.Location
	if loc == nil {
		loc = time.Local
	}
	return now().In(loc).Format(time.RFC3339)
}

// SetAlarm sets a user alarm for the given time, provided in ISO-8601 format.
//
//wield:tool
func (d *DateTimeTools) SetAlarm(in AlarmRequest) (string, error) {
	t, err := time.Parse(time.RFC3339, in.Time)
	if err != nil {
		return "", fmt.Errorf("time %q is not in ISO-8601 format: %w", in.Time, err)
	}
	d.mu.Lock()
	d.alarms = append(d.alarms, t)
	d.mu.Unlock()
	return "Alarm set for " + t.Format(time.RFC3339), nil
}

// Alarms returns the alarms set so far.
func (d *DateTimeTools) Alarms() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Time(nil), d.alarms...)
}

func run(ctx context.Context, model chat.Model, tools *DateTimeTools, out io.Writer) error {
	c, err := client.New(model)
	if err != nil {
		return err
	}

	answer, err := c.Prompt("What day is tomorrow?").Tools(tools).Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, answer)

	answer, err = c.Prompt("Can you set an alarm 10 minutes from now?").Tools(tools).Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, answer)
	for _, a := range tools.Alarms() {
		fmt.Fprintln(out, "alarm:", a.Format(time.RFC3339))
	}
	return nil
}

// scriptedModel answers as a real model does with these tools, on 2015-10-20 at 16:29.
func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("getCurrentDateTime", `{}`)),
		chattest.Text("Tomorrow is 2015-10-21."),
		chattest.Calls(chattest.Call("getCurrentDateTime", `{}`)),
		chattest.Calls(chattest.Call("setAlarm", `{"time":"2015-10-20T16:39:00-07:00"}`)),
		chattest.Text("Your alarm is set for 16:39, 10 minutes from now."),
	)
}

func main() {
	loc := time.FixedZone("PDT", -7*60*60)
	tools := &DateTimeTools{
		Now:      func() time.Time { return time.Date(2015, 10, 20, 16, 29, 0, 0, loc) },
		Location: loc,
	}
	if err := run(context.Background(), scriptedModel(), tools, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
