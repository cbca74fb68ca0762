package sqlstore

import (
	"testing"

	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/memorytest"
)

func TestTurnsConformance(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			memorytest.RunTurns(t, func(t *testing.T) memory.TurnRepository { return open(t, b.dsn(t)) })
		})
	}
}
