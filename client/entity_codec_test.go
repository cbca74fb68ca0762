package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
)

// An entity is read by the rules its schema states, as tool arguments are: a duration as
// "1h30m", defaults filled in.
type Reminder struct {
	Text  string        `json:"text"`
	After time.Duration `json:"after"`
	Tone  string        `json:"tone,omitempty" default:"chime"`
}

func TestEntityReadsByItsSchema(t *testing.T) {
	m := chattest.New(chattest.Text(`{"text":"stretch","after":"1h30m"}`))
	got, err := client.Entity[Reminder](context.Background(), clienttest.New(t, m).Prompt("Remind me"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "stretch" || got.After != 90*time.Minute || got.Tone != "chime" {
		t.Errorf("got %+v", got)
	}
	if rf := m.Prompt(0).Options.ResponseFormat; rf == nil || !strings.Contains(string(rf.Schema), `"pattern"`) {
		t.Errorf("the schema sent does not describe the duration: %+v", rf)
	}

	m = chattest.New(chattest.Text(`{"text":"stretch","after":"soon"}`))
	_, err = client.Entity[Reminder](context.Background(), clienttest.New(t, m).Prompt("Remind me"))
	var ee *client.EntityError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "/after") {
		t.Errorf("malformed duration: %v", err)
	}
}
