package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
)

type Forecast struct {
	City  string   `json:"city"`
	TempC float64  `json:"tempC"`
	Tags  []string `json:"tags,omitempty"`
}

func TestEntity(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		want    Forecast
		wantErr string
	}{
		{"plain", `{"city":"Paris","tempC":25}`, Forecast{City: "Paris", TempC: 25}, ""},
		{"fenced", "```json\n{\"city\":\"Oslo\",\"tempC\":-3,\"tags\":[\"snow\"]}\n```", Forecast{City: "Oslo", TempC: -3, Tags: []string{"snow"}}, ""},
		{"not json", "It is sunny.", Forecast{}, "not a valid Forecast"},
		{"wrong shape", `{"city":"Paris"}`, Forecast{}, "tempC"},
		{"extra field", `{"city":"Paris","tempC":1,"mood":"happy"}`, Forecast{}, "mood"},
		{"empty", "  ", Forecast{}, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := chattest.New(chattest.Text(tt.answer))
			c := clienttest.New(t, m, client.WithSystem("You are a weather service."))
			got, err := client.Entity[Forecast](context.Background(), c.Prompt("Weather in Paris?"))
			if tt.wantErr != "" {
				var ee *client.EntityError
				if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.wantErr) || ee.Text != tt.answer {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.City != tt.want.City || got.TempC != tt.want.TempC || len(got.Tags) != len(tt.want.Tags) {
				t.Fatalf("got %+v", got)
			}
			p := m.Prompt(0)
			rf := p.Options.ResponseFormat
			if rf == nil || rf.Name != "Forecast" || !rf.Strict || !json.Valid(rf.Schema) || !strings.Contains(string(rf.Schema), `"tempC"`) {
				t.Fatalf("response format = %+v", rf)
			}
			sys := p.Messages[0].Content
			if !strings.HasPrefix(sys, "You are a weather service.") || !strings.Contains(sys, string(rf.Schema)) {
				t.Fatalf("system = %q", sys)
			}
		})
	}
}

func TestEntityModelError(t *testing.T) {
	m := chattest.New(chattest.Fail(errors.New("down")))
	if _, err := client.Entity[Forecast](context.Background(), clienttest.New(t, m).Prompt("x")); err == nil || !strings.Contains(err.Error(), "down") {
		t.Fatalf("err = %v", err)
	}
	if _, err := client.Entity[chan int](context.Background(), clienttest.New(t, m).Prompt("x")); err == nil {
		t.Fatal("a channel has no schema")
	}
}

// TestEntityErrorCutsWholeCharacters checks that a long answer is shortened in the error's text
// at a character boundary.
func TestEntityErrorCutsWholeCharacters(t *testing.T) {
	msg := (&client.EntityError{Type: "Forecast", Text: strings.Repeat("é", 150), Err: errors.New("not JSON")}).Error()
	if strings.Contains(msg, `\x`) || !strings.Contains(msg, strings.Repeat("é", 98)+`..."`) {
		t.Fatalf("error text %s", msg)
	}
}
