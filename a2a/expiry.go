package a2a

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
)

// Each principal's tasks are listed in an index record of the repository, and the principals
// with an index in one more, because a memory.TurnRepository cannot list its keys: the index is
// what counts a principal's open tasks, and what a sweep walks to remove expired tasks and to
// find tasks whose process ended.

// indexEntry is what a principal's index says of one of its tasks.
type indexEntry struct {
	Context string        `json:"c"`
	State   sdk.TaskState `json:"s"`
	// Expires is when a waiting or finished task is removed, in Unix milliseconds. A working
	// task's is when its admission lapses if its record was never written (its process ended
	// before the first save): a sweep then drops the entry.
	Expires int64 `json:"e,omitempty"`
	// Client is the address of an anonymous caller (no Authorize), whose tasks are counted
	// apart from other anonymous callers'.
	Client string `json:"k,omitempty"`
}

// anonymousClients is how many times MaxOpenTasks the anonymous callers of a server may have
// open in all: anonymous callers share a principal, and each (by its address) has MaxOpenTasks
// of its own, so that one cannot lock the others out.
const anonymousClients = 10

// openCount counts the open entries of tasks at now, and those of client among them.
func openCount(tasks map[string]indexEntry, client string, now int64) (all, mine int) {
	for _, e := range tasks {
		if !e.State.Terminal() && !e.expires(now) {
			all++
			if e.Client == client {
				mine++
			}
		}
	}
	return all, mine
}

// full reports whether the owner's open tasks leave no room for one more of client's: an
// anonymous client has MaxOpenTasks of its own, within anonymousClients times that in all.
func (s *taskStore) full(owner, client string, all, mine int) bool {
	if s.maxOpen <= 0 {
		return false
	}
	if owner == "" && client != "" {
		return mine >= s.maxOpen || all >= anonymousClients*s.maxOpen
	}
	return all >= s.maxOpen
}

// expires reports whether the entry is of a waiting or finished task whose time passed at now.
func (e indexEntry) expires(now int64) bool {
	return e.Expires > 0 && e.Expires <= now && (e.State.Terminal() || waits(e.State))
}

type taskIndex struct {
	Tasks map[string]indexEntry `json:"tasks"`
}

const principalsKey = "a2a-principals"

type principalList struct {
	Principals []string `json:"principals"`
}

func indexKey(owner string) string { return fmt.Sprintf("a2a-tasks:%d:%s", len(owner), owner) }

// errTooManyTasks refuses a new task of a principal that has ServerConfig.MaxOpenTasks open.
var errTooManyTasks = errors.New("too many open tasks")

// casRetries bounds the attempts of a compare-and-swap update of a shared record.
const casRetries = 64

// record is a JSON value kept under a repository key with compare-and-swap: load, change, save.
func updateRecord[T any](ctx context.Context, repo memory.TurnRepository, key, id string, change func(v *T, exists bool) (keep bool, err error)) error {
	if err := memory.ValidateConversationID(key); err != nil {
		return err
	}
	for range casRetries {
		r, ok, err := repo.LoadTurn(ctx, key)
		if err != nil {
			return err
		}
		var v T
		if ok {
			if err := json.Unmarshal(r.State, &v); err != nil {
				return fmt.Errorf("a2a: %s unreadable: %w", key, err)
			}
		}
		keep, err := change(&v, ok)
		if err != nil {
			return err
		}
		switch {
		case !keep && !ok:
			return nil
		case !keep:
			err = repo.DeleteTurn(ctx, key, r.ID, r.Seq)
		default:
			b, merr := json.Marshal(v)
			if merr != nil {
				return merr
			}
			seq := int64(1)
			if ok {
				seq = r.Seq + 1
			}
			err = repo.SaveTurn(ctx, key, memory.TurnRecord{ID: id, Seq: seq, State: b})
		}
		if !errors.Is(err, memory.ErrTurnConflict) {
			return err
		}
	}
	return fmt.Errorf("a2a: %s: %w: too many concurrent updates", key, memory.ErrTurnConflict)
}

// MaxFinishedTasks bounds the finished tasks a principal has kept: past it, the oldest are
// removed before their KeepFinished is over, so that the index, written at each change of the
// principal's tasks, stays small.
const MaxFinishedTasks = 1000

// updateIndex changes the owner's index; entries expired by now are taken out first and
// returned, for their tasks to be removed once the index no longer names them, and, after the
// change, the oldest finished entries past MaxFinishedTasks (evicted). An update that changes
// nothing is not written: the index is the largest record a task writes, several times.
func (s *taskStore) updateIndex(ctx context.Context, owner string, change func(ix *taskIndex) error) (expired, evicted []sdk.TaskID, err error) {
	key := indexKey(owner)
	if err := memory.ValidateConversationID(key); err != nil {
		return nil, nil, err
	}
	for range casRetries {
		r, ok, err := s.repo.LoadTurn(ctx, key)
		if err != nil {
			return nil, nil, err
		}
		before, err := s.decodeIndex(key, r, ok)
		if err != nil {
			return nil, nil, err
		}
		ix := taskIndex{Tasks: maps.Clone(before)}
		expired, evicted = expired[:0], evicted[:0]
		now := s.nowMs()
		for id, e := range ix.Tasks {
			if e.expires(now) {
				expired = append(expired, sdk.TaskID(id))
				delete(ix.Tasks, id)
			}
		}
		if err := change(&ix); err != nil {
			return nil, nil, err
		}
		var finished []string
		for id, e := range ix.Tasks {
			if e.State.Terminal() {
				finished = append(finished, id)
			}
		}
		if extra := len(finished) - s.maxFinished; extra > 0 {
			slices.SortFunc(finished, func(a, b string) int { return cmp.Compare(ix.Tasks[a].Expires, ix.Tasks[b].Expires) })
			for _, id := range finished[:extra] {
				evicted = append(evicted, sdk.TaskID(id))
				delete(ix.Tasks, id)
			}
		}
		switch {
		case maps.Equal(before, ix.Tasks):
			return expired, evicted, nil // nothing changed (nor expired, nor evicted)
		case len(ix.Tasks) == 0:
			err = s.repo.DeleteTurn(ctx, key, r.ID, r.Seq)
		default:
			b, merr := json.Marshal(ix)
			if merr != nil {
				return nil, nil, merr
			}
			seq := int64(1)
			if ok {
				seq = r.Seq + 1
			}
			w := memory.TurnRecord{ID: "index", Seq: seq, State: b}
			if err = s.repo.SaveTurn(ctx, key, w); err == nil {
				s.cacheIndex(key, w, ix.Tasks)
			}
		}
		if errors.Is(err, memory.ErrTurnConflict) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			err = s.listPrincipal(ctx, owner, true)
		}
		return expired, evicted, err
	}
	return nil, nil, fmt.Errorf("a2a: %s: %w: too many concurrent updates", key, memory.ErrTurnConflict)
}

// cachedIndex is an index as this process last wrote or read it: decoding the index is most of
// what a task's update of it costs, and comparing its bytes a small part of that.
type cachedIndex struct {
	raw   []byte
	tasks map[string]indexEntry // never changed: updates change a copy
}

// decodeIndex returns the entries of the index record r (none when !ok), decoded once per
// version; the map must not be changed.
func (s *taskStore) decodeIndex(key string, r memory.TurnRecord, ok bool) (map[string]indexEntry, error) {
	if !ok {
		return map[string]indexEntry{}, nil
	}
	s.ixMu.Lock()
	c, hit := s.ixCache[key]
	s.ixMu.Unlock()
	if hit && bytes.Equal(c.raw, r.State) {
		return c.tasks, nil
	}
	var ix taskIndex
	if err := json.Unmarshal(r.State, &ix); err != nil {
		return nil, fmt.Errorf("a2a: %s unreadable: %w", key, err)
	}
	if ix.Tasks == nil {
		ix.Tasks = map[string]indexEntry{}
	}
	s.cacheIndex(key, r, ix.Tasks)
	return ix.Tasks, nil
}

// maxCachedIndexes bounds the decoded indexes a process keeps; past it the cache starts over.
const maxCachedIndexes = 1024

func (s *taskStore) cacheIndex(key string, r memory.TurnRecord, tasks map[string]indexEntry) {
	s.ixMu.Lock()
	defer s.ixMu.Unlock()
	if s.ixCache == nil || len(s.ixCache) >= maxCachedIndexes {
		s.ixCache = map[string]cachedIndex{}
	}
	s.ixCache[key] = cachedIndex{raw: r.State, tasks: tasks}
}

// listPrincipal adds the owner to the principals with an index, or takes it out.
func (s *taskStore) listPrincipal(ctx context.Context, owner string, add bool) error {
	return updateRecord(ctx, s.repo, principalsKey, "principals", func(l *principalList, _ bool) (bool, error) {
		i := slices.Index(l.Principals, owner)
		switch {
		case add && i < 0:
			l.Principals = append(l.Principals, owner)
		case !add && i >= 0:
			l.Principals = slices.Delete(l.Principals, i, i+1)
		}
		return len(l.Principals) > 0, nil
	})
}

// openTasks counts the owner's tasks that are not over (working or waiting), as its index says,
// and reports whether they leave room for one more of the caller of ctx.
func (s *taskStore) openTasks(ctx context.Context, owner string) (n int, full bool, _ error) {
	if memory.ValidateConversationID(indexKey(owner)) != nil {
		return 0, false, nil
	}
	r, ok, err := s.repo.LoadTurn(ctx, indexKey(owner))
	if err != nil || !ok {
		return 0, false, err
	}
	tasks, err := s.decodeIndex(indexKey(owner), r, true)
	if err != nil {
		return 0, false, err
	}
	client := clientOf(ctx)
	all, mine := openCount(tasks, client, s.nowMs())
	return all, s.full(owner, client, all, mine), nil
}

// admit lists a new task of the owner as working, unless the owner has MaxOpenTasks open
// already (errTooManyTasks).
func (s *taskStore) admit(ctx context.Context, owner string, id sdk.TaskID, contextID string) error {
	var client string
	if owner == "" {
		client = clientOf(ctx)
	}
	expired, evicted, err := s.updateIndex(ctx, owner, func(ix *taskIndex) error {
		all, mine := openCount(ix.Tasks, client, s.nowMs())
		if s.full(owner, client, all, mine) {
			return errTooManyTasks
		}
		// Until its first save, which is at once, the entry lapses with a lease: a process
		// that ends before leaves no open task behind (a sweep drops the entry). The first
		// save leaves the entry as it is, and so does not write the index.
		ix.Tasks[string(id)] = indexEntry{Context: contextID, State: sdk.TaskStateWorking, Expires: s.now().Add(s.lease).UnixMilli(), Client: client}
		return nil
	})
	s.remove(ctx, expired, false)
	s.remove(ctx, evicted, true)
	return err
}

// indexTask records the task's state in its owner's index.
func (s *taskStore) indexTask(ctx context.Context, owner string, t *sdk.Task, expires int64) error {
	expired, evicted, err := s.updateIndex(ctx, owner, func(ix *taskIndex) error {
		e := indexEntry{Context: t.ContextID, State: t.Status.State, Expires: expires}
		cur, ok := ix.Tasks[string(t.ID)]
		if ok && e.State == sdk.TaskStateWorking && cur.State == e.State && cur.Context == e.Context {
			return nil // working still: its record holds the lease, and the entry is unchanged
		}
		e.Client = cur.Client
		ix.Tasks[string(t.ID)] = e
		return nil
	})
	s.remove(ctx, expired, false)
	s.remove(ctx, evicted, true)
	return err
}

// remove removes tasks whose time passed, or finished tasks evicted: the task, its
// conversation's mark that it waits, and the stopped turn it held in the client's turn store. A
// task that changed since its index entry was taken out (resumed, say) stays.
func (s *taskStore) remove(ctx context.Context, ids []sdk.TaskID, evicted bool) {
	for _, id := range ids {
		rec, seq, ok, err := s.loadStored(ctx, id)
		if err != nil || !ok || s.running(id) || !rec.expired(s.nowMs()) && !(evicted && rec.Task.Status.State.Terminal()) {
			continue
		}
		if err := s.repo.DeleteTurn(ctx, taskKey(id), string(id), seq); err != nil {
			continue // changed meanwhile: what changed it keeps it
		}
		conv := conversation(rec.Owner, rec.Task.ContextID)
		if wk := waitingKey(conv); memory.ValidateConversationID(wk) == nil {
			if r, ok, err := s.repo.LoadTurn(ctx, wk); err == nil && ok && r.ID == string(id) {
				_ = s.repo.DeleteTurn(ctx, wk, r.ID, r.Seq)
			}
		}
		if s.turns != nil && rec.Turn != nil {
			if st, err := s.turns.LoadTurn(ctx, conv); err == nil && st != nil && st.ID == rec.Turn.ID && st.Seq == rec.Turn.Seq {
				_ = s.turns.EndTurn(ctx, conv, st.ID, st.Seq)
			}
		}
	}
}

// check brings the task up to date before a caller sees it: an expired task is removed, and a
// working task whose lease passed, with no process running it, is recovered.
func (s *taskStore) check(ctx context.Context, id sdk.TaskID) error {
	rec, _, ok, err := s.loadStored(ctx, id)
	if err != nil || !ok {
		return err
	}
	now := s.nowMs()
	switch {
	case rec.expired(now):
		s.remove(ctx, []sdk.TaskID{id}, false)
	case rec.abandoned(now) && !s.running(id):
		return s.recover(ctx, id)
	}
	return nil
}

// abandoned reports whether the record is of a working task whose process ended: its lease
// passed at now.
func (r taskRecord) abandoned(now int64) bool {
	st := r.Task.Status.State
	return !st.Terminal() && !waits(st) && r.Lease <= now
}

// recover settles a task whose process ended while it worked. A runner whose turns go on without
// that process (TurnFollower) says where the task's turn is, and the task follows it: it works
// on while the turn runs, waits for input when the turn stopped, and ends as the turn ended.
// Otherwise, when the client's turn store holds the turn the task ran, stopped where it can be
// continued, the task waits for input: for a decision on the calls that were running (they may
// or may not have had their effects), or, after a completed round, for a reply to go on.
// Otherwise it failed.
func (s *taskStore) recover(ctx context.Context, id sdk.TaskID) error {
	var followed *TurnStatus
	if s.follow != nil {
		// Read before the lock, from the runner's service: a turn that runs or waits does not
		// move back meanwhile, and one that waits moves on only with the task's next message.
		rec, _, ok, err := s.loadStored(ctx, id)
		if err != nil || !ok || !rec.abandoned(s.nowMs()) || s.running(id) {
			return err
		}
		ts, err := s.follow(ctx, id)
		if err != nil {
			return fmt.Errorf("a2a: reading the turn of task %s: %w", id, err)
		}
		if ts.Running {
			return nil // the task works on with its turn: a later look settles it
		}
		followed = &ts
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	rec, seq, ok, err := s.loadStored(ctx, id)
	if err != nil || !ok || !rec.abandoned(s.nowMs()) || s.running(id) {
		return err // settled meanwhile
	}
	t := rec.Task
	var st *client.TurnState
	if followed == nil {
		var owned bool
		if st, owned = s.leftTurn(ctx, id, rec); owned {
			return nil // its round's owner still holds the client's lease: a look after it ends settles it
		}
	}
	var parts []sdk.Part
	var turn *client.TurnState
	switch {
	case followed != nil:
		parts, turn = followTurn(t, *followed)
	case st == nil:
		t.Status.State = sdk.TaskStateFailed
		parts = []sdk.Part{sdk.TextPart{Text: "The agent's process ended during the turn, which did not finish."}}
	case len(st.Pending()) == 0:
		t.Status.State, turn = sdk.TaskStateInputRequired, st
		parts = []sdk.Part{
			sdk.TextPart{Text: "The agent's process ended during the turn, after its last completed tool round. Reply to continue the turn from there."},
			sdk.DataPart{Data: map[string]any{"pending": []any{}}, Metadata: map[string]any{MetaKind: "pending"}},
		}
	default:
		t.Status.State, turn = sdk.TaskStateInputRequired, st
		if needsCredentials(st) {
			t.Status.State = sdk.TaskStateAuthRequired
		}
		parts = pendingParts(st, "The agent's process ended during the turn. ")
	}
	var msg *sdk.Message
	if len(parts) > 0 {
		msg = sdk.NewMessage(sdk.MessageRoleAgent, parts...)
		msg.TaskID, msg.ContextID = t.ID, t.ContextID
	}
	now := s.now()
	t.Status.Message, t.Status.Timestamp = msg, &now
	raw, err := json.Marshal(t)
	if err != nil {
		return err
	}
	times := s.timesFor(t.Status.State, recordTimes{})
	b, err := json.Marshal(storedRecord{Owner: rec.Owner, Task: raw, Turn: turn, recordTimes: times})
	if err != nil {
		return err
	}
	if err := s.repo.SaveTurn(ctx, taskKey(id), memory.TurnRecord{ID: string(id), Seq: seq + 1, State: b}); err != nil {
		if errors.Is(err, memory.ErrTurnConflict) {
			return nil // its process renewed the lease, or another settled it
		}
		return err
	}
	if t.Status.State == sdk.TaskStateFailed && followed == nil && s.endTurn != nil {
		s.endTurn(ctx, id)
	}
	if err := s.markWaiting(ctx, rec.Owner, t); err != nil {
		return err
	}
	return s.indexTask(ctx, rec.Owner, t, times.Expires)
}

// followTurn settles t as its turn, which outlived the process that ran it, stopped or ended;
// it returns the parts of its status message and the stopped state it waits on.
func followTurn(t *sdk.Task, ts TurnStatus) ([]sdk.Part, *client.TurnState) {
	resp := ts.Response
	if ts.Failed != nil || resp == nil {
		t.Status.State = sdk.TaskStateFailed
		return []sdk.Part{sdk.TextPart{Text: "The agent's turn failed."}}, nil
	}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	t.Metadata[MetaTreeSpent] = resp.Tree
	if st := resp.Pending; st != nil {
		t.Status.State = sdk.TaskStateInputRequired
		if needsCredentials(st) {
			t.Status.State = sdk.TaskStateAuthRequired
		}
		return pendingParts(st, ""), st
	}
	t.Status.State = sdk.TaskStateCompleted
	a := &sdk.Artifact{ID: answerID, Name: string(answerID)}
	for _, p := range splitText(resp.Text(), maxPartBytes) {
		a.Parts = append(a.Parts, sdk.TextPart{Text: p})
	}
	t.Artifacts = append(t.Artifacts, a)
	return nil, nil
}

// leftTurn returns the turn the task's run left in the client's turn store, when it is that
// run's (not a turn before it, nor one of another task of the context) and can be continued;
// owned reports that its round is still leased by the process running it ([client.TurnState.Leased]).
func (s *taskStore) leftTurn(ctx context.Context, id sdk.TaskID, rec taskRecord) (_ *client.TurnState, owned bool) {
	if s.turns == nil {
		return nil, false
	}
	conv := conversation(rec.Owner, rec.Task.ContextID)
	st, err := s.turns.LoadTurn(ctx, conv)
	if err != nil || st == nil {
		return nil, false
	}
	if rec.TurnID != "" && st.ID != rec.TurnID || rec.TurnID == "" && st.ID == rec.PriorTurn {
		return nil, false
	}
	if st.Leased() {
		return nil, true
	}
	if len(st.Pending()) == 0 && st.Status != client.TurnReady {
		return nil, false
	}
	// Another task working in the context at the same time may have written it.
	r, ok, err := s.repo.LoadTurn(ctx, indexKey(rec.Owner))
	if err != nil || !ok {
		return nil, false
	}
	tasks, err := s.decodeIndex(indexKey(rec.Owner), r, true)
	if err != nil {
		return nil, false
	}
	for other, e := range tasks {
		if other != string(id) && e.Context == rec.Task.ContextID && !e.State.Terminal() && !waits(e.State) {
			return nil, false
		}
	}
	return st, false
}

// sweep removes the expired tasks of every principal, recovers the abandoned ones, and forgets
// principals without tasks.
func (s *taskStore) sweep(ctx context.Context) error {
	r, ok, err := s.repo.LoadTurn(ctx, principalsKey)
	if err != nil || !ok {
		return err
	}
	var l principalList
	if err := json.Unmarshal(r.State, &l); err != nil {
		return fmt.Errorf("a2a: the list of principals is unreadable: %w", err)
	}
	var errs []error
	for _, owner := range l.Principals {
		working := map[sdk.TaskID]indexEntry{}
		expired, evicted, err := s.updateIndex(ctx, owner, func(ix *taskIndex) error {
			clear(working)
			for id, e := range ix.Tasks {
				if !e.State.Terminal() && !waits(e.State) {
					working[sdk.TaskID(id)] = e
				}
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.remove(ctx, expired, false)
		s.remove(ctx, evicted, true)
		for id, e := range working {
			if err := s.check(ctx, id); err != nil {
				errs = append(errs, err)
			}
			if err := s.dropLapsed(ctx, owner, id, e); err != nil {
				errs = append(errs, err)
			}
		}
		if _, ok, err := s.repo.LoadTurn(ctx, indexKey(owner)); err == nil && !ok {
			// Taken out, then looked at again: an index made meanwhile lists its owner anew.
			if err := s.listPrincipal(ctx, owner, false); err != nil {
				errs = append(errs, err)
			} else if _, ok, err := s.repo.LoadTurn(ctx, indexKey(owner)); err == nil && ok {
				errs = append(errs, s.listPrincipal(ctx, owner, true))
			}
		}
	}
	return errors.Join(errs...)
}

// dropLapsed takes out of the owner's index a working task admitted whose record was never
// written (its process ended before the task's first save), once its admission lapsed.
func (s *taskStore) dropLapsed(ctx context.Context, owner string, id sdk.TaskID, e indexEntry) error {
	if e.Expires == 0 || e.Expires > s.nowMs() || s.running(id) {
		return nil
	}
	if _, _, ok, err := s.loadStored(ctx, id); err != nil || ok {
		return err
	}
	_, _, err := s.updateIndex(ctx, owner, func(ix *taskIndex) error {
		if ix.Tasks[string(id)] == e {
			delete(ix.Tasks, string(id))
		}
		return nil
	})
	return err
}
