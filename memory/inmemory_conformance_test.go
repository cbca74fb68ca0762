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
