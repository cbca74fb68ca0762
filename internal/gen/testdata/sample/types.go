package main

// AlarmRequest asks for an alarm.
type AlarmRequest struct {
	// Time is when the alarm rings,
	// in ISO-8601 format.
	Time  string    `json:"time"`
	Label string    `json:"label,omitempty"` // Label names the alarm.
	Every *Schedule `json:"every,omitempty"`
	// Tagged has a description in its tag, which wins over this comment.
	Tagged string `json:"tagged,omitempty" jsonschema:"the tag's description"`
	Common
}

// Common holds settings shared by requests.
type Common struct {
	// Priority orders alarms that ring at once.
	Priority int `json:"priority,omitempty"`
	// Label is shadowed by AlarmRequest's own Label.
	Label string `json:"-"`
}

// Schedule repeats an alarm.
type Schedule struct {
	Days []string `json:"days"` // Days are the weekdays the alarm rings on.
}

// AlarmSet confirms an alarm.
type AlarmSet struct {
	ID string `json:"id"` // ID identifies the alarm.
}

// ForecastInput says where and how far ahead.
type ForecastInput struct {
	// City is the city's name.
	City string `json:"city"`
	// Days is how many days to forecast.
	Days int `json:"days"`
}

// Day is one day's forecast.
type Day struct {
	Summary string `json:"summary"`
}

// unused is not reached from any tool and stays undocumented.
type unused struct {
	// X is never registered.
	X int
}
