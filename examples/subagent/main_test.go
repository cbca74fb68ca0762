package main

import (
	"io"
	"slices"
	"testing"

	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestSubagent(t *testing.T) {
	assistant, booker := scriptedModels()
	agency := &Agency{}
	out := exampletest.Output(t, func(w io.Writer) error { return run(t.Context(), assistant, booker, agency, w) })
	want := `Let me book that.
booker {"input":"Cheapest flight Zurich to Paris on Friday"} started
[booker] search_flights {"from":"ZRH","to":"CDG"} started
[booker] search_flights finished: [{"number":"LX 318","price":240},{"number":"AF 1115","price":180}]
[booker] AF 1115 is cheapest.
[booker] book_flight {"number":"AF 1115"} needs approval
booker stopped: the agent "booker" needs approval
turn: approval_required
approve book_flight {"number":"AF 1115"} of booker
booker {"input":"Cheapest flight Zurich to Paris on Friday"} started
[booker] book_flight {"number":"AF 1115"} started
[booker] book_flight finished: booked AF 1115, confirmation K7Q2
[booker] Booked AF 1115, confirmation K7Q2.
booker finished: Booked AF 1115, confirmation K7Q2.
You are booked on AF 1115 on Friday (confirmation K7Q2).
turn: answer
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
	// The flight was booked once, after the approval.
	if !slices.Equal(agency.Booked, []string{"AF 1115"}) {
		t.Fatalf("booked = %v", agency.Booked)
	}
	// The booking agent went on from where it stopped: its search and its call, then the result.
	if booker.Requests() != 3 || assistant.Requests() != 2 {
		t.Fatalf("requests: booker %d, assistant %d", booker.Requests(), assistant.Requests())
	}
	p := booker.Prompt(2).Messages
	if last := p[len(p)-1]; last.ToolResults[0].Content != "booked AF 1115, confirmation K7Q2" || len(p) != 6 {
		t.Fatalf("booker's last prompt = %v", p)
	}
	// The assistant's model read the booking agent's answer as its tool's result.
	a := assistant.Prompt(1).Messages
	if r := a[len(a)-1].ToolResults[0]; r.Content != "Booked AF 1115, confirmation K7Q2." {
		t.Fatalf("assistant's result = %+v", r)
	}
}
