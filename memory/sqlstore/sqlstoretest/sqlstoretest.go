// Package sqlstoretest gives a test of code built on sqlstore a PostgreSQL database of its own:
// a new schema on a shared server, dropped when the test ends, so tests (and several checkouts)
// sharing the server never see each other's tables.
package sqlstoretest

import (
	"context"
	"crypto/rand"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Postgres creates a schema of its own on the PostgreSQL server at base (a postgres:// URL) and
// returns the URL that opens it, for sqlstore.Open. The schema is dropped after t. It fails t if
// the server cannot be reached or base is not a URL.
func Postgres(t testing.TB, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("the test PostgreSQL URL: %v", err)
	}
	ctx := context.WithoutCancel(t.Context())
	schema := strings.ToLower("wield_test_" + rand.Text()[:12])
	if err := exec(ctx, base, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create a schema on the test PostgreSQL server: %v", err)
	}
	t.Cleanup(func() {
		if err := exec(ctx, base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// exec runs one statement on its own connection to the server at dsn.
func exec(ctx context.Context, dsn, sql string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}
