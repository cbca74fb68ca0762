package sqlstore

import (
	"errors"
	"testing"

	"github.com/wield-ai/wield/memory"
)

func TestTurnsReadOnly(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		s := open(t, dsn)
		if err := s.SaveTurn(t.Context(), "c", memory.TurnRecord{ID: "t", Seq: 1, State: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		ro := open(t, dsn, ReadOnly())
		if rec, ok, err := ro.LoadTurn(t.Context(), "c"); !ok || err != nil || rec.ID != "t" {
			t.Fatalf("LoadTurn = %+v, %v, %v", rec, ok, err)
		}
		if err := ro.SaveTurn(t.Context(), "c", memory.TurnRecord{ID: "t", Seq: 2, State: []byte(`{}`)}); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("SaveTurn: %v", err)
		}
		if err := ro.DeleteTurn(t.Context(), "c", "t", 1); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("DeleteTurn: %v", err)
		}
		if _, _, err := s.LoadTurn(t.Context(), "bad\x00id"); !errors.Is(err, memory.ErrInvalidConversationID) {
			t.Fatalf("LoadTurn of a bad id: %v", err)
		}
	})
}
