package sqlstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory/sqlstore"
)

func ExampleOpenSQLite() {
	dir, err := os.MkdirTemp("", "wield-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	store, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, "chat.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	err = store.Append(ctx, "trip-planning",
		chat.User("What's the weather in Lisbon?"),
		chat.Assistant("", chat.ToolCall{ID: "call_1", Name: "weather", Arguments: `{"city":"Lisbon"}`}),
		chat.ToolMessage(chat.ToolResult{ID: "call_1", Name: "weather", Content: "24 °C, sunny"}),
		chat.Assistant("It is 24 °C and sunny in Lisbon."),
	)
	if err != nil {
		log.Fatal(err)
	}
	msgs, err := store.Messages(ctx, "trip-planning")
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Println(m)
	}
	// Output:
	// user: What's the weather in Lisbon?
	// assistant:  [call weather{"city":"Lisbon"}]
	// tool:  [result weather: 24 °C, sunny]
	// assistant: It is 24 °C and sunny in Lisbon.
}

func ExampleOpen() {
	ctx := context.Background()
	// A postgres:// URL opens PostgreSQL; the schema is created on first use. Several processes
	// may share the database.
	store, err := sqlstore.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	ids, err := store.Conversations(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ids), "conversations")
}

func ExampleReadOnly() {
	dir, err := os.MkdirTemp("", "wield-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	path := filepath.Join(dir, "sessions.db")
	w, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Append(ctx, "planning", chat.User("Where to?"), chat.Assistant("Lisbon.")); err != nil {
		log.Fatal(err)
	}
	w.Close()

	// A program that only lists conversations opens the store read-only: it needs no write
	// access to the file or its directory, and changes nothing.
	store, err := sqlstore.OpenSQLite(ctx, path, sqlstore.ReadOnly())
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	ids, err := store.Conversations(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range ids {
		_, last, err := store.Last(ctx, id, 1)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, "ends with", last[0])
	}
	fmt.Println(store.Append(ctx, "planning", chat.User("And then?")))
	// Output:
	// planning ends with assistant: Lisbon.
	// sqlstore: store opened read-only
}
