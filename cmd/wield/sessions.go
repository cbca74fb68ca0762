package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/sqlstore"
)

// sessionsHint says where sessions are kept, for help texts.
const sessionsHint = "$XDG_DATA_HOME/wield/sessions.db (~/.local/share/wield/sessions.db by default)"

func (a *app) sessionsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show and delete the conversations chat keeps",
		Long: "sessions manages the conversations that wield chat keeps in " + sessionsHint + `: those named
with --session NAME, and the unnamed ones (named chat-DATE-TIME-ID, the last ` + strconv.Itoa(keptUnnamed) + ` kept) that
wield chat --continue resumes.`,
		Example: `  wield sessions list
  wield sessions show planning
  wield sessions delete planning`,
	}
	cmd.AddCommand(a.sessionsList(), a.sessionsShow(), a.sessionsDelete())
	return groupCommand(cmd)
}

func (a *app) sessionsList() *cobra.Command {
	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the sessions, the most recent first",
		Long: `list prints the sessions, the most recently used first: each one's name, when it was last used,
the model of its last turn, how many questions it holds, and the first line of the first.
--json prints them as a JSON array.`,
		Example: "  wield sessions list\n  wield sessions list --json | jq -r '.[0].name'",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := a.openSessionsReadOnly(cmd.Context())
			if err != nil {
				return err
			}
			var infos []sessionInfo
			if store != nil {
				defer store.Close()
				if infos, err = listSessions(cmd.Context(), store); err != nil {
					return err
				}
			}
			if listJSON {
				return writeJSON(a.stdout, append([]sessionInfo{}, infos...))
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, s := range infos {
				when := "-"
				if !s.Updated.IsZero() {
					when = s.Updated.In(a.location()).Format("2006-01-02 15:04")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", safeLine(s.Name), when, cmp.Or(safeLine(s.Model), "-"), s.Turns, safeLine(s.FirstLine))
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print the sessions as a JSON array")
	return list
}

func (a *app) sessionsShow() *cobra.Command {
	var showJSON bool
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a session's conversation",
		Long: `show prints the messages of a session: your questions, the model's answers, and the tool calls
and results in between, and for each question when it was asked, the model that answered and the
tokens it took (for sessions kept since wield recorded them). --json prints the messages as a JSON
array, as they are stored, each question with a "turn" object holding that record.`,
		Example: `  wield sessions show planning
  wield sessions show --json planning | jq '.[] | select(.role=="tool")'`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.sessionArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := a.openSessionsReadOnly(cmd.Context())
			if err != nil {
				return err
			}
			if store == nil {
				return fmt.Errorf("no session named %q", args[0])
			}
			defer store.Close()
			ids, err := store.Conversations(cmd.Context())
			if err != nil {
				return err
			}
			if !slices.Contains(ids, args[0]) {
				return fmt.Errorf("no session named %q (wield sessions list shows them)", args[0])
			}
			msgs, err := store.Messages(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			turns := turnsOf(cmd.Context(), store.db, args[0])
			if showJSON {
				return writeJSON(a.stdout, withTurns(msgs, turns))
			}
			writeConversation(a.stdout, msgs, turns, a.location(), a.stdoutTTY && a.color())
			return nil
		},
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print the messages as a JSON array")
	return show
}

func (a *app) sessionsDelete() *cobra.Command {
	del := &cobra.Command{
		Use:               "delete NAME...",
		Short:             "Delete sessions and their messages",
		Example:           "  wield sessions delete planning",
		ValidArgsFunction: a.sessionArgs,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name the sessions to delete")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !a.sessionsExist() {
				return fmt.Errorf("no session named %q", args[0])
			}
			store, err := a.openSessions(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			for _, name := range args {
				ids, err := store.Conversations(cmd.Context())
				if err != nil {
					return err
				}
				if !slices.Contains(ids, name) {
					return fmt.Errorf("no session named %q", name)
				}
				if err := deleteSession(cmd.Context(), store, name); err != nil {
					return err
				}
				a.deleteTurnLog(cmd.Context(), name)
			}
			return nil
		},
	}
	return del
}

// writeConversation prints messages for reading: who said what, tool calls and their results.
func writeConversation(w interface{ Write([]byte) (int, error) }, msgs []chat.Message, turns []turnInfo, loc *time.Location, color bool) {
	label := func(s string) string {
		if color {
			return "\x1b[1m" + s + ansiReset
		}
		return s
	}
	dim := func(s string) string {
		if color {
			return ansiDim + s + ansiReset
		}
		return s
	}
	byQuestion := turnsByQuestion(turns)
	asked := 0
	for i, m := range msgs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		switch m.Role {
		case chat.RoleUser:
			if t, ok := byQuestion[asked]; ok {
				fmt.Fprintln(w, dim(fmt.Sprintf("— %s · %s · %d in, %d out tokens · %.1fs", t.At.In(loc).Format("2006-01-02 15:04:05"), safeLine(t.Model), t.InputTokens, t.OutputTokens, float64(t.Millis)/1000)))
			}
			asked++
			fmt.Fprintf(w, "%s\n%s\n", label("you:"), safeText(m.Content))
			for _, p := range mediaParts(m.Parts) {
				fmt.Fprintln(w, dim(partLine(p)))
			}
		case chat.RoleAssistant:
			fmt.Fprintln(w, label("assistant:"))
			if m.Content != "" {
				fmt.Fprintln(w, safeText(m.Content))
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintln(w, dim("→ "+safeLine(c.Name)+" "+shortArgs(c.Arguments)))
			}
		case chat.RoleTool:
			for _, r := range m.ToolResults {
				status := "←"
				if r.IsError {
					status = "✗"
				}
				fmt.Fprintln(w, dim(status+" "+safeLine(r.Name)+": "+safeLine(oneLine(r.Content, 200))))
				for _, p := range mediaParts(r.Parts) {
					fmt.Fprintln(w, dim("  "+partLine(p)))
				}
			}
		case chat.RoleSystem:
			fmt.Fprintf(w, "%s\n%s\n", label("system:"), safeText(m.Content))
		default:
			fmt.Fprintf(w, "%s\n%s\n", label(safeLine(string(m.Role))+":"), safeText(m.Content))
		}
	}
}

// sessionArgs completes session names.
func (a *app) sessionArgs(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return a.completeSessions(cmd.Context())
}

func (a *app) completeSessions(ctx context.Context) ([]cobra.Completion, cobra.ShellCompDirective) {
	store, err := a.openSessionsReadOnly(ctx)
	if err != nil || store == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer store.Close()
	ids, err := store.Conversations(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	out := make([]cobra.Completion, 0, len(ids))
	for _, id := range ids {
		if safeLine(id) == id {
			out = append(out, id)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// dataDir is wield's directory in the user's data directory.
func (a *app) dataDir() (string, error) {
	return a.xdgDir("XDG_DATA_HOME", filepath.Join(".local", "share"), "data directory for sessions")
}

// stateDir is wield's directory in the user's state directory: the input history and the name
// of the last chat.
func (a *app) stateDir() (string, error) {
	return a.xdgDir("XDG_STATE_HOME", filepath.Join(".local", "state"), "state directory")
}

func (a *app) sessionsPath() (string, error) {
	dir, err := a.dataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "sessions.db"), nil
}

// openSessions opens the SQLite store of sessions for writing, creating it if needed.
func (a *app) openSessions(ctx context.Context) (*sqlstore.Store, error) {
	path, err := a.sessionsPath()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	s, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("sessions in %s: %w", path, err)
	}
	return s, nil
}

// openSessionsReadOnly opens the store of sessions for reading only, so that listing works
// where the data directory cannot be written; nil when there is no store yet.
func (a *app) openSessionsReadOnly(ctx context.Context) (*sessionReader, error) {
	path, err := a.sessionsPath()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	// mode=ro reads alongside writers, sharing the write-ahead log's index (-shm), which it
	// creates if need be; where the directory cannot be written and there is none, the file is
	// read as immutable: no process can be writing it in WAL mode without that index.
	var firstErr error
	for _, mode := range []string{"mode=ro", "immutable=1"} {
		q := url.Values{}
		q.Set("_pragma", "busy_timeout("+strconv.FormatInt(sqlstore.SQLiteBusyTimeout.Milliseconds(), 10)+")")
		dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode() + "&" + mode}).String()
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, err
		}
		s, err := sqlstore.New(ctx, db, sqlstore.SQLite)
		if err == nil {
			return &sessionReader{Store: s, db: db}, nil
		}
		db.Close()
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, fmt.Errorf("sessions in %s: %w", path, firstErr)
}

// sessionReader is the store of sessions opened for reading.
type sessionReader struct {
	*sqlstore.Store
	db *sql.DB
}

// Close closes the store and its database.
func (r *sessionReader) Close() error {
	r.Store.Close()
	return r.db.Close()
}

// sessionsExist reports whether the session store has been created, so that listing sessions
// does not create it.
func (a *app) sessionsExist() bool {
	path, err := a.sessionsPath()
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}

func checkSessionName(name string) error {
	if strings.TrimSpace(name) != name || name == "" || safeLine(name) != name {
		return usagef("--session %q: use a name without control characters or surrounding spaces", name)
	}
	return nil
}

// conversation is where a chat keeps its messages.
type conversation struct {
	repo memory.Repository
	id   string
	// named: the user chose the session (--session, or --continue of a named one).
	named bool
	// resumed is how many messages the conversation had already.
	resumed int
	// log records the turns, when the chat is kept.
	log   *turnLog
	close func()
}

// keptUnnamed is how many unnamed chats are kept for --continue and sessions show.
const keptUnnamed = 20

// unnamedID matches the names of unnamed chats.
var unnamedID = regexp.MustCompile(`^chat-\d{8}-\d{6}-[0-9a-f]{4}$`)

// openConversation opens the conversation a chat keeps: --session's, the last one
// (--continue), or a new unnamed one. Unnamed chats fall back to memory when the store cannot be
// written, with a note on a terminal; named ones fail.
func (a *app) openConversation(ctx context.Context, f chatFlags) (*conversation, error) {
	id, named := f.session, f.session != ""
	if f.resume {
		last, err := a.lastChat()
		if err != nil || !a.sessionHasMessages(ctx, last) {
			// The last chat was deleted (or never recorded): the newest one left.
			if last, err = a.newestSession(ctx); err != nil {
				return nil, err
			}
		}
		id, named = last, !unnamedID.MatchString(last)
	}
	store, err := a.openSessions(ctx)
	if err != nil {
		if id != "" {
			return nil, err
		}
		if a.stderrTTY && !f.json {
			fmt.Fprintf(a.stderr, "wield: this chat is not kept (%s)\n", safeLine(err.Error()))
		}
		return &conversation{repo: memory.NewInMemory(), id: "wield", close: func() {}}, nil
	}
	c := &conversation{repo: store, id: id, named: named}
	if path, err := a.sessionsPath(); err == nil {
		c.log, _ = openTurnLog(ctx, path)
	}
	c.close = func() { store.Close(); c.log.close() }
	if id == "" {
		c.id = newUnnamedID()
		a.pruneUnnamed(ctx, store)
	} else if prior, err := store.Messages(ctx, id); err == nil {
		c.resumed = len(prior)
	}
	if f.resume && c.resumed == 0 {
		c.close()
		return nil, fmt.Errorf("the chat %q is gone (deleted?); wield sessions list shows the others", id)
	}
	a.setLastChat(c.id)
	return c, nil
}

func newUnnamedID() string {
	var b [2]byte
	rand.Read(b[:])
	return "chat-" + time.Now().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// pruneUnnamed deletes the oldest unnamed chats beyond the newest keptUnnamed-1, making room for
// the one starting.
func (a *app) pruneUnnamed(ctx context.Context, store *sqlstore.Store) {
	ids, err := store.Conversations(ctx)
	if err != nil {
		return
	}
	var unnamed []string
	for _, id := range ids {
		if unnamedID.MatchString(id) {
			unnamed = append(unnamed, id)
		}
	}
	// The names sort by time.
	for len(unnamed) > keptUnnamed-1 {
		deleteSession(ctx, store, unnamed[0])
		unnamed = unnamed[1:]
	}
}

// deleteSession deletes a conversation and the turn it may have kept (stopped at a question, or
// cut short), which the store keeps apart from the messages.
func deleteSession(ctx context.Context, store *sqlstore.Store, id string) error {
	if rec, ok, err := store.LoadTurn(ctx, id); err == nil && ok {
		if err := store.DeleteTurn(ctx, id, rec.ID, rec.Seq); err != nil && !errors.Is(err, memory.ErrTurnConflict) {
			return err
		}
	}
	return store.Delete(ctx, id)
}

// sessionHasMessages reports whether session id is kept with messages.
func (a *app) sessionHasMessages(ctx context.Context, id string) bool {
	r, err := a.openSessionsReadOnly(ctx)
	if err != nil || r == nil {
		return false
	}
	defer r.Close()
	msgs, err := r.Messages(ctx, id)
	return err == nil && len(msgs) > 0
}

// lastChatFile holds the name of the last chat, for --continue.
func (a *app) lastChatFile() (string, error) {
	dir, err := a.stateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "last-chat"), nil
}

func (a *app) lastChat() (string, error) {
	path, err := a.lastChatFile()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && strings.TrimSpace(string(b)) == "" {
		return "", errors.New("no chat to continue yet: start one with wield chat")
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// setLastChat records id as the last chat; failing to is not worth stopping a chat for.
func (a *app) setLastChat(id string) {
	path, err := a.lastChatFile()
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, []byte(id+"\n"), 0o600) == nil {
		if os.Rename(tmp, path) != nil {
			os.Remove(tmp)
		}
	}
}
