package memory_test

import (
	"testing"

	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/memorytest"
)

func TestInMemoryConformance(t *testing.T) {
	memorytest.Run(t, func(*testing.T) memory.Repository { return memory.NewInMemory() })
}

func TestInMemoryZeroValueConformance(t *testing.T) {
	memorytest.Run(t, func(*testing.T) memory.Repository { return new(memory.InMemory) })
}

func TestInMemoryTurnsConformance(t *testing.T) {
	memorytest.RunTurns(t, func(*testing.T) memory.TurnRepository { return memory.NewInMemory() })
	memorytest.RunTurns(t, func(*testing.T) memory.TurnRepository { return new(memory.InMemory) })
}

func TestInMemoryCompactionConformance(t *testing.T) {
	memorytest.RunCompaction(t, func(*testing.T) memory.CompactionRepository { return memory.NewInMemory() })
	memorytest.RunCompaction(t, func(*testing.T) memory.CompactionRepository { return new(memory.InMemory) })
}
