package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/toolsearch"
)

func TestCapabilityQueries(t *testing.T) {
	tests := []struct {
		request string
		want    []string
	}{
		{"What is the weather in Oslo?", []string{"What is the weather in Oslo?"}},
		{"Get the weather in Oslo. Then send an email to Ana with the forecast.",
			[]string{"Get the weather in Oslo", "send an email to Ana with the forecast."}},
		{"Find flights to Rome and book a hotel near the station, also convert 300 dollars to euros",
			[]string{"Find flights to Rome", "book a hotel near the station", "convert dollars to euros"}},
		// A bare "and" joins the objects of one request; ", and" starts another.
		{"Calculate the greatest common divisor of 96 and 128, and the least common multiple of 15 and 25.",
			[]string{"Calculate the greatest common divisor of and", "the least common multiple of and"}},
		// Abbreviations, initials and hyphenated words cut nothing.
		{"Ask Dr. Smith about U.S. tax rules and check-out times.", []string{"Ask Dr. Smith about U.S. tax rules and check-out times."}},
		{"I need you to plot a sine wave from 0 to 3.14 radians; please save the plot as an image",
			[]string{"I you to plot a sine wave from to radians", "save the plot as an image"}},
		// A clause of one or two content words is a detail of the clause before.
		{"Translate the menu, then into French.", []string{"Translate the menu into French."}},
		{"Steps:\n1. clone the git repository\n2. build the container image\n- push the image to the registry",
			[]string{"Steps:", "clone the git repository", "build the container image", "push the image to the registry"}},
		// Nothing but filler: the request is sent whole.
		{"Can you please help me?", []string{"Can you please help me?"}},
	}
	for _, tt := range tests {
		if got := capabilityQueries(tt.request); !slices.Equal(got, tt.want) {
			t.Errorf("capabilityQueries(%q)\n = %q\nwant %q", tt.request, got, tt.want)
		}
	}

	var long []string
	for i := range toolsearch.MaxSearchQueries + 3 {
		long = append(long, fmt.Sprintf("Compute the checksum number %c of the archive.", 'a'+i))
	}
	got := capabilityQueries(strings.Join(long, " "))
	if len(got) != toolsearch.MaxSearchQueries || !strings.Contains(got[len(got)-1], "checksum number m") {
		t.Errorf("%d queries, last %q: want the search tool's cap, the rest joined to the last", len(got), got[len(got)-1])
	}
}
