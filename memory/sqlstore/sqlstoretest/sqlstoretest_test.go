package sqlstoretest_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/memory/sqlstore"
	"github.com/wield-ai/wield/memory/sqlstore/sqlstoretest"
)

// TestPostgres checks that two tests' databases do not see each other and that a test's schema
// is gone after it.
func TestPostgres(t *testing.T) {
	base := testenv.Env(t, "WIELD_TEST_POSTGRES_URL")
	var schemas []string
	for _, conv := range []string{"first", "second"} {
		t.Run(conv, func(t *testing.T) {
			dsn := sqlstoretest.Postgres(t, base)
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			schemas = append(schemas, u.Query().Get("search_path"))
			s, err := sqlstore.Open(t.Context(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Append(t.Context(), conv, chat.User("hi")); err != nil {
				t.Fatal(err)
			}
			ids, err := s.Conversations(t.Context())
			if err != nil || !slices.Equal(ids, []string{conv}) {
				t.Fatalf("conversations = %v, %v; want only this test's", ids, err)
			}
		})
	}
	if len(schemas) != 2 || schemas[0] == "" || schemas[0] == schemas[1] {
		t.Fatalf("schemas = %v, want two", schemas)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = ANY($1)", schemas).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d of the tests' schemas are left after them", left)
	}
}
