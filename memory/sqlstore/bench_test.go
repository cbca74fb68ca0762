package sqlstore

import (
	"context"
	"fmt"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/wield-ai/wield/memory/memorytest"
)

// BenchmarkAppend measures appending one turn (user, assistant with a tool call, tool result)
// against a baseline doing the least any SQL store must: one transaction inserting the same
// encoded rows at known positions, without the conversation row that orders concurrent writers.
// Report the ratio store/baseline.
func BenchmarkAppend(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			dsn := be.dsn(b)
			s, err := Open(context.Background(), dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			turn := memorytest.Batch("bench", 0, 3)
			ctx := context.Background()
			b.Run("store", func(b *testing.B) {
				for b.Loop() {
					if err := s.Append(ctx, "store", turn...); err != nil {
						b.Fatal(err)
					}
				}
			})
			runs := 0
			b.Run("baseline", func(b *testing.B) {
				runs++
				conv := fmt.Sprintf("baseline-%d", runs)
				insert := s.rebind("INSERT INTO wield_messages (conversation_id, seq, role, message) VALUES (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?)")
				if _, err := s.db.ExecContext(ctx, s.rebind("INSERT INTO wield_conversations (id, next_seq) VALUES (?, 0)"), conv); err != nil {
					b.Fatal(err)
				}
				seq := int64(0)
				for b.Loop() {
					args := make([]any, 0, 12)
					for _, m := range turn {
						raw, err := jsonv2.Marshal(m)
						if err != nil {
							b.Fatal(err)
						}
						args = append(args, conv, seq, string(m.Role), string(raw))
						seq++
					}
					tx, err := s.db.BeginTx(ctx, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := tx.ExecContext(ctx, insert, args...); err != nil {
						b.Fatal(err)
					}
					if err := tx.Commit(); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("messages-100", func(b *testing.B) {
				if err := s.Replace(ctx, "read", memorytest.Batch("r", 0, 100)); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := s.Messages(ctx, "read"); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkWindow measures memory.Window.Get over a conversation of 50,000 messages (tool-call
// turns, no system message, so the lookup of one finds none) against reading the whole
// conversation and trimming it (memorytest.BenchWindow). Report the ratio window/whole.
func BenchmarkWindow(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s, err := Open(context.Background(), be.dsn(b))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			for i := range 50_000 / 1000 {
				if err := s.Append(ctx, "long", memorytest.Batch("w", i, 1000)...); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Append(ctx, "other", memorytest.Batch("o", 0, 100)...); err != nil {
				b.Fatal(err)
			}
			if s.dialect == Postgres {
				if _, err := s.db.ExecContext(ctx, "ANALYZE wield_messages"); err != nil {
					b.Fatal(err)
				}
			}
			memorytest.BenchWindow(b, s, "long")
		})
	}
}
