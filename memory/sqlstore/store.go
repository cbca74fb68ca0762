package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
)

// Dialect is the SQL database a [Store] talks to.
type Dialect int

// The supported databases.
const (
	SQLite Dialect = iota + 1
	Postgres
)

// String names the dialect.
func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

// Store is a [memory.Repository] in a SQL database. It is safe for concurrent use, also by
// several processes sharing the database.
type Store struct {
	db      *sql.DB
	dialect Dialect
	ownDB   bool // Close closes db

	readOnly bool

	qAppend, qReplaceConv, qDeleteConv, qDeleteMsgs, qDeleteReplaced, qMessages, qLast, qConversations string

	inserts sync.Map // number of rows → INSERT statement

	// beforeCommit, when set by tests, runs inside every write transaction after its rows are
	// written and before it commits.
	beforeCommit func()
}

var _ memory.Repository = (*Store)(nil)

// SQLiteBusyTimeout is how long a SQLite write waits for another connection or process holding
// the database's write lock before it fails.
const SQLiteBusyTimeout = 30 * time.Second

// ErrReadOnly is returned by the writes of a store opened with [ReadOnly].
var ErrReadOnly = errors.New("sqlstore: store opened read-only")

// Option configures a store made by [Open], [OpenSQLite], [OpenPostgres] or [New].
type Option func(*options)

type options struct {
	readOnly bool
}

// ReadOnly opens the store for reading only, for programs that only look: the schema is
// neither created nor migrated (a database without it is refused, one at an older version is
// read as it is), writes fail with [ErrReadOnly], PostgreSQL sessions are read-only, and SQLite
// opens the file read-only, so that a file or directory the program may not write works.
//
// SQLite shares a WAL database between readers through a file beside it, which a read-only
// directory does not let it create; the file is then opened as immutable, which assumes that no
// other process changes it while the store is open.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// Open opens the store named by dsn: a postgres:// or postgresql:// URL opens PostgreSQL (see
// [OpenPostgres]); anything else is the path of a SQLite file (see [OpenSQLite]).
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return OpenPostgres(ctx, dsn, opts...)
	}
	return OpenSQLite(ctx, dsn, opts...)
}

// OpenSQLite opens, creating it if needed, the SQLite database file at path, in WAL mode with a
// busy timeout of [SQLiteBusyTimeout], and creates or migrates the schema. The file's directory
// must exist. With [ReadOnly] the file must exist and is neither created nor changed. Close the
// store when done.
func OpenSQLite(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlstore: empty SQLite path")
	}
	o := collect(opts)
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	if o.readOnly {
		if _, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("sqlstore: open %s read-only: %w", path, err)
		}
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(SQLiteBusyTimeout.Milliseconds(), 10))
	if o.readOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_journal_mode", "WAL")
		// Taking the write lock at BEGIN avoids the lock upgrade that busy timeouts cannot resolve.
		q.Set("_txlock", "immediate")
		q.Add("_pragma", "foreign_keys(1)")
	}
	dsn := func(q url.Values) string {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}).String()
	}
	db, err := sql.Open("sqlite", dsn(q))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: open %s: %w", path, err)
	}
	s, err := newOwned(ctx, db, SQLite, opts)
	if err != nil && o.readOnly && sqliteCannotShare(err) {
		q.Set("immutable", "1")
		if db, err2 := sql.Open("sqlite", dsn(q)); err2 == nil {
			if s2, err2 := newOwned(ctx, db, SQLite, opts); err2 == nil {
				return s2, nil
			}
		}
	}
	return s, err
}

// sqliteCannotShare reports whether SQLite failed for want of writing beside a read-only
// database: SQLITE_READONLY or SQLITE_CANTOPEN, whatever the extended code.
func sqliteCannotShare(err error) bool {
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return false
	}
	const sqliteReadOnly, sqliteCantOpen = 8, 14
	switch se.Code() & 0xff {
	case sqliteReadOnly, sqliteCantOpen:
		return true
	}
	return false
}

// OpenPostgres connects to the PostgreSQL database at url (a postgres:// URL or a key=value
// connection string, as pgx reads them; unknown URL parameters such as search_path are sent as
// session settings) and creates or migrates the schema. With [ReadOnly] its sessions are
// read-only. Close the store when done.
func OpenPostgres(ctx context.Context, url string, opts ...Option) (*Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	if collect(opts).readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	db := stdlib.OpenDB(*cfg)
	return newOwned(ctx, db, Postgres, opts)
}

func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// newOwned is [New] for a database the store opened itself: closed with the store, or at once
// when the store cannot be made.
func newOwned(ctx context.Context, db *sql.DB, d Dialect, opts []Option) (*Store, error) {
	s, err := New(ctx, db, d, opts...)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.ownDB = true
	return s, nil
}

// New returns a store on a database the caller opened, after creating or migrating the schema
// (with [ReadOnly], after checking it). [Store.Close] leaves db open. A SQLite db should be
// opened as [OpenSQLite] does (WAL, a busy timeout and _txlock=immediate) to be shared by several
// connections or processes.
func New(ctx context.Context, db *sql.DB, dialect Dialect, opts ...Option) (*Store, error) {
	if db == nil {
		return nil, errors.New("sqlstore: nil database")
	}
	if dialect != SQLite && dialect != Postgres {
		return nil, fmt.Errorf("sqlstore: unknown %v", dialect)
	}
	s := &Store{db: db, dialect: dialect, readOnly: collect(opts).readOnly}
	now := "CURRENT_TIMESTAMP"
	if dialect == SQLite {
		now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
	}
	s.qAppend = s.rebind(`INSERT INTO wield_conversations (id, next_seq) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET next_seq = wield_conversations.next_seq + excluded.next_seq, updated_at = ` + now + `
		RETURNING next_seq`)
	s.qReplaceConv = s.rebind(`INSERT INTO wield_conversations (id, next_seq) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET next_seq = excluded.next_seq, updated_at = ` + now)
	s.qDeleteConv = s.rebind(`DELETE FROM wield_conversations WHERE id = ?`)
	s.qDeleteMsgs = s.rebind(`DELETE FROM wield_messages WHERE conversation_id = ?`)
	s.qDeleteReplaced = s.rebind(`DELETE FROM wield_replaced WHERE conversation_id = ?`)
	s.qMessages = s.rebind(`SELECT message FROM wield_messages WHERE conversation_id = ? ORDER BY seq`)
	s.qConversations = `SELECT id FROM wield_conversations ORDER BY id`
	version := SchemaVersion
	if s.readOnly {
		v, err := s.checkSchema(ctx)
		if err != nil {
			return nil, err
		}
		version = v
	} else if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	// One statement reads the tail and the latest system message at one snapshot: the first
	// through the primary key backwards, the second through the partial index on system
	// messages, which SQLite must be told to use (without statistics it prefers to scan the
	// conversation backwards through the primary key, which reads all of a conversation that
	// has no system message). The index came with schema version 2.
	system := "wield_messages"
	if dialect == SQLite && version >= 2 {
		system = "wield_messages INDEXED BY wield_messages_system"
	}
	s.qLast = s.rebind(`SELECT 0, seq, message FROM (
			SELECT seq, message FROM wield_messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?) AS tail
		UNION ALL
		SELECT 1, seq, message FROM (
			SELECT seq, message FROM ` + system + ` WHERE conversation_id = ? AND role = 'system' ORDER BY seq DESC LIMIT 1) AS sys`)
	return s, nil
}

// ReadOnly reports whether the store was opened with [ReadOnly].
func (s *Store) ReadOnly() bool { return s.readOnly }

// Dialect reports the database the store talks to.
func (s *Store) Dialect() Dialect { return s.dialect }

// Close closes the database if the store opened it.
func (s *Store) Close() error {
	if !s.ownDB {
		return nil
	}
	return s.db.Close()
}

// Append adds msgs at the end of the conversation, creating it if needed, in one transaction.
func (s *Store) Append(ctx context.Context, id string, msgs ...chat.Message) error {
	if err := s.writable(id); err != nil {
		return err
	}
	rows, err := encode(msgs)
	if err != nil {
		return fmt.Errorf("sqlstore: append to %q: %w", id, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		// The upsert locks the conversation's row until commit: appends to one conversation take
		// turns, each reserving the next len(msgs) sequence numbers.
		var next int64
		if err := tx.QueryRowContext(ctx, s.qAppend, id, int64(len(rows))).Scan(&next); err != nil {
			return err
		}
		return s.insert(ctx, tx, id, next-int64(len(rows)), rows)
	})
	if err != nil {
		return fmt.Errorf("sqlstore: append to %q: %w", id, err)
	}
	return nil
}

// Messages returns the conversation's messages in order; an unknown id has none.
func (s *Store) Messages(ctx context.Context, id string) ([]chat.Message, error) {
	if err := memory.ValidateConversationID(id); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.qMessages, id)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: messages of %q: %w", id, err)
	}
	defer rows.Close()
	var out []chat.Message
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("sqlstore: messages of %q: %w", id, err)
		}
		var m chat.Message
		if err := jsonv2.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("sqlstore: message %d of %q: %w", len(out), id, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: messages of %q: %w", id, err)
	}
	return out, nil
}

// Last returns the conversation's last n messages and the system message before them, if any,
// reading only those rows.
func (s *Store) Last(ctx context.Context, id string, n int) (*chat.Message, []chat.Message, error) {
	if err := memory.ValidateConversationID(id); err != nil {
		return nil, nil, err
	}
	if n < 1 {
		return nil, nil, nil
	}
	rows, err := s.db.QueryContext(ctx, s.qLast, id, int64(n), id)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: last messages of %q: %w", id, err)
	}
	defer rows.Close()
	type seqMessage struct {
		seq int64
		m   chat.Message
	}
	var tail []seqMessage
	var system *seqMessage
	for rows.Next() {
		var part int64
		var sm seqMessage
		var raw []byte
		if err := rows.Scan(&part, &sm.seq, &raw); err != nil {
			return nil, nil, fmt.Errorf("sqlstore: last messages of %q: %w", id, err)
		}
		if err := jsonv2.Unmarshal(raw, &sm.m); err != nil {
			return nil, nil, fmt.Errorf("sqlstore: message at %d of %q: %w", sm.seq, id, err)
		}
		if part == 1 {
			system = &sm
		} else {
			tail = append(tail, sm)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlstore: last messages of %q: %w", id, err)
	}
	// A compound SELECT keeps no order: sort here.
	slices.SortFunc(tail, func(a, b seqMessage) int { return cmp.Compare(a.seq, b.seq) })
	msgs := make([]chat.Message, len(tail))
	for i, sm := range tail {
		msgs[i] = sm.m
	}
	if system == nil || (len(tail) > 0 && system.seq >= tail[0].seq) {
		return nil, msgs, nil // no system message, or one among those returned
	}
	return &system.m, msgs, nil
}

// Replace makes msgs the whole conversation, in one transaction; empty msgs delete it.
func (s *Store) Replace(ctx context.Context, id string, msgs []chat.Message) error {
	if err := s.writable(id); err != nil {
		return err
	}
	if len(msgs) == 0 {
		if err := s.delete(ctx, id, false); err != nil {
			return fmt.Errorf("sqlstore: replace %q: %w", id, err)
		}
		return nil
	}
	rows, err := encode(msgs)
	if err != nil {
		return fmt.Errorf("sqlstore: replace %q: %w", id, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.qReplaceConv, id, int64(len(rows))); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.qDeleteMsgs, id); err != nil {
			return err
		}
		return s.insert(ctx, tx, id, 0, rows)
	})
	if err != nil {
		return fmt.Errorf("sqlstore: replace %q: %w", id, err)
	}
	return nil
}

// Delete removes the conversation, its messages, its open turn and what compaction replaced in
// it; an unknown id is not an error.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.writable(id); err != nil {
		return err
	}
	if err := s.delete(ctx, id, true); err != nil {
		return fmt.Errorf("sqlstore: delete %q: %w", id, err)
	}
	return nil
}

// delete removes the conversation's row and messages, and with turn its open turn and what
// compaction replaced, in one transaction.
func (s *Store) delete(ctx context.Context, id string, turn bool) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		// The conversation's row goes first, so its lock keeps appends out until commit.
		if _, err := tx.ExecContext(ctx, s.qDeleteConv, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.qDeleteMsgs, id); err != nil {
			return err
		}
		if !turn {
			return nil
		}
		if _, err := tx.ExecContext(ctx, s.qDeleteReplaced, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, turnSQL[s.dialect].deleteAll, id)
		return err
	})
}

// Conversations lists the ids of stored conversations, sorted bytewise.
func (s *Store) Conversations(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.qConversations)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: conversations: %w", err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlstore: conversations: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: conversations: %w", err)
	}
	return ids, nil
}

// writable checks what every write checks first: an id every repository accepts, and a store
// that may write.
func (s *Store) writable(id string) error {
	if err := memory.ValidateConversationID(id); err != nil {
		return err
	}
	if s.readOnly {
		return ErrReadOnly
	}
	return nil
}

// row is a message ready to store.
type row struct {
	role string
	json []byte
}

// encode makes msgs rows. A string that is not valid UTF-8 (a tool's raw bytes) is stored with
// U+FFFD for each invalid byte, as JSON encoders send it to the model, rather than refused:
// refusing it would fail the turn after its tools ran, and every retry of it.
func encode(msgs []chat.Message) ([]row, error) {
	rows := make([]row, len(msgs))
	for i, m := range msgs {
		b, err := jsonv2.Marshal(m, jsontext.AllowInvalidUTF8(true))
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		// PostgreSQL text holds neither NUL nor invalid UTF-8; JSON escapes the first and
		// replaced the second, and the role column is only ever compared with plain names.
		role := strings.ToValidUTF8(strings.ReplaceAll(string(m.Role), "\x00", ""), "\uFFFD")
		rows[i] = row{role: role, json: b}
	}
	return rows, nil
}

// insertBatch bounds the rows of one INSERT, well under SQLite's limit of bound parameters.
const insertBatch = 200

// insert writes rows with sequence numbers from first on.
func (s *Store) insert(ctx context.Context, tx *sql.Tx, id string, first int64, rows []row) error {
	for len(rows) > 0 {
		n := min(len(rows), insertBatch)
		args := make([]any, 0, 4*n)
		for i, r := range rows[:n] {
			args = append(args, id, first+int64(i), r.role, string(r.json))
		}
		if _, err := tx.ExecContext(ctx, s.insertQuery(n), args...); err != nil {
			return err
		}
		rows, first = rows[n:], first+int64(n)
	}
	return nil
}

// insertQuery returns the INSERT of n messages, built once per n.
func (s *Store) insertQuery(n int) string {
	if q, ok := s.inserts.Load(n); ok {
		return q.(string)
	}
	var q strings.Builder
	q.WriteString("INSERT INTO wield_messages (conversation_id, seq, role, message) VALUES ")
	for i := range n {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?)")
	}
	query := s.rebind(q.String())
	s.inserts.Store(n, query)
	return query
}

// write runs fn in a transaction and commits it, retrying when PostgreSQL reports a
// serialization failure or deadlock, which a concurrent schema change or lock order can cause.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := s.tx(ctx, fn)
		if err == nil || attempt >= 4 || !retryable(err) {
			return err
		}
	}
}

func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if s.beforeCommit != nil {
		s.beforeCommit()
	}
	return tx.Commit()
}

func retryable(err error) bool {
	var coder interface{ SQLState() string }
	if errors.As(err, &coder) {
		switch coder.SQLState() {
		case "40001", "40P01": // serialization_failure, deadlock_detected
			return true
		}
	}
	return false
}

// rebind turns ? placeholders into PostgreSQL's $n. Queries here have no ? in literals.
func (s *Store) rebind(q string) string {
	if s.dialect != Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
