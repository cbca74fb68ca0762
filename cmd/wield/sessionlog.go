package main

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory/sqlstore"
)

// The store of sessions keeps the messages (package memory's tables); the command keeps beside
// them, in a table of its own, what each turn was: when, with which model, for how many tokens.
// Session files made before this table existed open as they are: their turns have no such record.

const turnLogTable = `CREATE TABLE IF NOT EXISTS wield_cli_turns (
	conversation_id TEXT NOT NULL,
	question        INTEGER NOT NULL,
	started_at      TEXT NOT NULL,
	millis          INTEGER NOT NULL,
	model           TEXT NOT NULL,
	input_tokens    INTEGER NOT NULL,
	output_tokens   INTEGER NOT NULL
)`

// turnInfo is the record of one turn.
type turnInfo struct {
	// Question is the turn's question: the index among the conversation's user messages.
	Question     int       `json:"-"`
	At           time.Time `json:"at"`
	Millis       int64     `json:"millis"`
	Model        string    `json:"model"`
	InputTokens  int       `json:"inputTokens"`
	OutputTokens int       `json:"outputTokens"`
}

// turnLog writes the records of a chat's turns; nil when the chat is not kept.
type turnLog struct{ db *sql.DB }

// openTurnLog opens the turn records of the sessions file at path for writing.
func openTurnLog(ctx context.Context, path string) (*turnLog, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(sqlstore.SQLiteBusyTimeout.Milliseconds(), 10)+")")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}).String())
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, turnLogTable); err != nil {
		db.Close()
		return nil, err
	}
	return &turnLog{db: db}, nil
}

// add records a turn of conversation id; failing to is not worth stopping a chat for.
func (l *turnLog) add(ctx context.Context, id string, t turnInfo) {
	if l == nil {
		return
	}
	l.db.ExecContext(context.WithoutCancel(ctx), `INSERT INTO wield_cli_turns VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, t.Question, t.At.UTC().Format(time.RFC3339Nano), t.Millis, t.Model, t.InputTokens, t.OutputTokens)
}

func (l *turnLog) close() {
	if l != nil {
		l.db.Close()
	}
}

// deleteTurnLog forgets the records of conversation id.
func (a *app) deleteTurnLog(ctx context.Context, id string) {
	path, err := a.sessionsPath()
	if err != nil {
		return
	}
	l, err := openTurnLog(ctx, path)
	if err != nil {
		return
	}
	defer l.close()
	l.db.ExecContext(ctx, `DELETE FROM wield_cli_turns WHERE conversation_id = ?`, id)
}

// turnsOf reads the turn records of conversation id, oldest first; none for files without them.
func turnsOf(ctx context.Context, db *sql.DB, id string) []turnInfo {
	rows, err := db.QueryContext(ctx, `SELECT question, started_at, millis, model, input_tokens, output_tokens FROM wield_cli_turns WHERE conversation_id = ? ORDER BY rowid`, id)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []turnInfo
	for rows.Next() {
		var t turnInfo
		var at string
		if rows.Scan(&t.Question, &at, &t.Millis, &t.Model, &t.InputTokens, &t.OutputTokens) != nil {
			return out
		}
		t.At, _ = time.Parse(time.RFC3339Nano, at)
		out = append(out, t)
	}
	return out
}

// sessionInfo is what sessions list says of a session.
type sessionInfo struct {
	Name      string    `json:"name"`
	Updated   time.Time `json:"updated"`
	Model     string    `json:"model,omitempty"`
	Turns     int       `json:"turns"`
	Messages  int       `json:"messages"`
	FirstLine string    `json:"firstLine"`
}

// listSessions describes the sessions of r, the most recently used first.
func listSessions(ctx context.Context, r *sessionReader) ([]sessionInfo, error) {
	ids, err := r.Conversations(ctx)
	if err != nil {
		return nil, err
	}
	updated := map[string]time.Time{}
	if rows, err := r.db.QueryContext(ctx, `SELECT id, updated_at FROM wield_conversations`); err == nil {
		for rows.Next() {
			var id, at string
			if rows.Scan(&id, &at) == nil {
				updated[id] = parseSQLiteTime(at)
			}
		}
		rows.Close()
	}
	out := make([]sessionInfo, 0, len(ids))
	for _, id := range ids {
		// A name the store refuses to read (written by hand) is listed all the same.
		msgs, _ := r.Messages(ctx, id)
		s := sessionInfo{Name: id, Updated: updated[id], Messages: len(msgs)}
		for _, m := range msgs {
			if m.Role != chat.RoleUser {
				continue
			}
			if s.Turns == 0 {
				s.FirstLine = oneLine(firstLine(m.Content), 60)
			}
			s.Turns++
		}
		if turns := turnsOf(ctx, r.db, id); len(turns) > 0 {
			s.Model = turns[len(turns)-1].Model
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b sessionInfo) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name)
	})
	return out, nil
}

// parseSQLiteTime reads the store's timestamps ('%Y-%m-%dT%H:%M:%fZ' or SQLite's default form).
func parseSQLiteTime(s string) time.Time {
	for _, layout := range []string{"2006-01-02T15:04:05.000Z", time.RFC3339Nano, "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// newestSession is the most recently used session, for --continue when the last chat is gone.
func (a *app) newestSession(ctx context.Context) (string, error) {
	r, err := a.openSessionsReadOnly(ctx)
	if err != nil || r == nil {
		return "", errors.New("no chat to continue yet: start one with wield chat")
	}
	defer r.Close()
	list, err := listSessions(ctx, r)
	if err != nil {
		return "", err
	}
	for _, s := range list {
		if s.Messages > 0 {
			return s.Name, nil
		}
	}
	return "", errors.New("no chat to continue: wield sessions list has none; start one with wield chat")
}

// withTurns is msgs for --json, each question with its turn's record.
func withTurns(msgs []chat.Message, turns []turnInfo) []any {
	byQuestion := turnsByQuestion(turns)
	out := make([]any, 0, len(msgs))
	asked := 0
	for _, m := range msgs {
		if m.Role != chat.RoleUser {
			out = append(out, m)
			continue
		}
		if t, ok := byQuestion[asked]; ok {
			out = append(out, struct {
				chat.Message
				Turn turnInfo `json:"turn"`
			}{m, t})
		} else {
			out = append(out, m)
		}
		asked++
	}
	return out
}

// turnsByQuestion indexes turn records by their question; a question asked again (a turn taken
// up later) keeps its last record.
func turnsByQuestion(turns []turnInfo) map[int]turnInfo {
	out := make(map[int]turnInfo, len(turns))
	for _, t := range turns {
		out[t.Question] = t
	}
	return out
}
