package main

import (
	"context"
	"errors"
	"time"
)

// DateTimeTools are tools about dates and times.
type DateTimeTools struct {
	Zone *time.Location
}

// GetCurrentDateTime gets the current date and time in the user's time zone.
//
//wield:tool
func (d DateTimeTools) GetCurrentDateTime() string {
	return time.Now().In(d.Zone).Format(time.RFC3339)
}

// SetAlarm sets a user alarm for the given time
// and says when it will ring.
//
//wield:tool name=set_alarm returnDirect
func (d *DateTimeTools) SetAlarm(ctx context.Context, in AlarmRequest) (AlarmSet, error) {
	if in.Time == "" {
		return AlarmSet{}, errors.New("no time")
	}
	return AlarmSet{ID: "alarm-1"}, nil
}

// Helper is exported but not a tool: it has no directive.
func (d DateTimeTools) Helper() string { return "" }

// Weather forecasts the weather.
type Weather struct{}

// Forecast tells the weather of the next days.
//
// Example arguments:
//
//	{"city": "Lisbon", "days": 3}
//
// It never fails.
//
//wield:tool
func (Weather) Forecast(in ForecastInput) []Day {
	return make([]Day, in.Days)
}

// Retired looks like a tool but lost its directive.
func (Weather) Retired() {}
