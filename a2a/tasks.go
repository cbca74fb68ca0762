package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
)

// taskRecord is what the server keeps of a task: the A2A task, who created it, and the stopped
// turn it waits on while input-required.
type taskRecord struct {
	Owner string            `json:"owner"`
	Task  *sdk.Task         `json:"task"`
	Turn  *client.TurnState `json:"turn,omitempty"`
	recordTimes
}

// recordTimes are what a stored task says of its life, in Unix milliseconds.
type recordTimes struct {
	// Expires is when a waiting or finished task is removed; zero while it works.
	Expires int64 `json:"expires,omitempty"`
	// Lease is how long the process running a working task vouches for it: a working task
	// whose lease passed belongs to a process that ended (see taskStore.recover).
	Lease int64 `json:"lease,omitempty"`
	// TurnID is the turn a resumed task continues; PriorTurn the conversation's open turn when
	// a new task started, which is not its own. They tell which stored turn a task whose
	// process ended left behind.
	TurnID    string `json:"turnId,omitempty"`
	PriorTurn string `json:"priorTurn,omitempty"`
}

// taskStore is the SDK's task store over a memory.TurnRepository, so that tasks live where turns
// do (in process, SQLite, PostgreSQL) and survive a restart. A task is written through to the
// repository when its state changes, and while it works each time its lease is renewed; the
// events between (progress of a working task) are kept in process only, since a restart ends
// the turn they belong to anyway.
type taskStore struct {
	repo memory.TurnRepository
	life

	wmu  sync.Mutex // one update at a time: each reads the step it follows
	mu   sync.Mutex
	live map[sdk.TaskID]*liveTask // tasks whose newest save is not in repo
	// stopped holds a turn that stopped until its task's input-required state is saved, which
	// the SDK does after the events before it.
	stopped map[sdk.TaskID]*client.TurnState
	// runs holds which turn a run starting continues, for its first save.
	runs map[sdk.TaskID]recordTimes

	ixMu    sync.Mutex
	ixCache map[string]cachedIndex // by index key
}

// life is how long tasks live: see the fields of ServerConfig they come from.
type life struct {
	now          func() time.Time
	keepWaiting  time.Duration
	keepFinished time.Duration
	lease        time.Duration
	maxOpen      int
	maxFinished  int
	turns        client.TurnStore
	// endTurn, when set, ends the turn of a task settled as failed: a runner's turn that
	// outlives its process (TurnCanceler) must not go on for a task that is over.
	endTurn func(ctx context.Context, id sdk.TaskID)
	// follow, when set, reads where the turn of a task whose process ended is (TurnFollower):
	// the task follows it rather than fail.
	follow func(ctx context.Context, id sdk.TaskID) (TurnStatus, error)
}

type liveTask struct {
	owner string
	state sdk.TaskState
	seq   int64  // the repository's step of the record
	task  []byte // the task's JSON
	times recordTimes
}

func newTaskStore(repo memory.TurnRepository, l life) *taskStore {
	return &taskStore{repo: repo, life: l, live: map[sdk.TaskID]*liveTask{}, stopped: map[sdk.TaskID]*client.TurnState{}, runs: map[sdk.TaskID]recordTimes{}}
}

func (s *taskStore) nowMs() int64 { return s.now().UnixMilli() }

// taskKey is the repository key of a task: its own namespace beside conversations.
func taskKey(id sdk.TaskID) string { return "a2a-task:" + string(id) }

// conversation is the conversation of a context for a principal: contexts of different callers
// never share a history, whatever ids they choose.
func conversation(principal, contextID string) string {
	return fmt.Sprintf("a2a:%d:%s:%s", len(principal), principal, contextID)
}

// waitingKey is the repository key naming the task of a conversation that waits for input: a
// conversation has one open turn, so a new task there must wait until it is answered or
// cancelled.
func waitingKey(conv string) string { return "a2a-waiting:" + conv }

// waiting returns the task that waits for input in the conversation, or "".
func (s *taskStore) waiting(ctx context.Context, conv string) (sdk.TaskID, error) {
	if memory.ValidateConversationID(waitingKey(conv)) != nil {
		return "", nil
	}
	r, ok, err := s.repo.LoadTurn(ctx, waitingKey(conv))
	if err != nil || !ok {
		return "", err
	}
	id := sdk.TaskID(r.ID)
	rec, _, ok, err := s.load(ctx, id)
	if err != nil || !ok || !waits(rec.Task.Status.State) {
		return "", err
	}
	return id, nil
}

// markWaiting records whether the task waits for input in its conversation.
func (s *taskStore) markWaiting(ctx context.Context, owner string, task *sdk.Task) error {
	key := waitingKey(conversation(owner, task.ContextID))
	if memory.ValidateConversationID(key) != nil {
		return nil
	}
	cur, ok, err := s.repo.LoadTurn(ctx, key)
	if err != nil {
		return err
	}
	id := string(task.ID)
	if waits(task.Status.State) {
		seq := int64(1)
		if ok {
			seq = cur.Seq + 1
		}
		return s.repo.SaveTurn(ctx, key, memory.TurnRecord{ID: id, Seq: seq, State: []byte("{}")})
	}
	if ok && cur.ID == id {
		return s.repo.DeleteTurn(ctx, key, cur.ID, cur.Seq)
	}
	return nil
}

// storedRecord is a taskRecord as stored: the task's JSON as it was encoded once.
type storedRecord struct {
	Owner string            `json:"owner"`
	Task  json.RawMessage   `json:"task"`
	Turn  *client.TurnState `json:"turn,omitempty"`
	recordTimes
}

// load returns the task's record and step, or ok false when there is none, it expired, or the
// id could not name one.
func (s *taskStore) load(ctx context.Context, id sdk.TaskID) (taskRecord, int64, bool, error) {
	rec, seq, ok, err := s.loadStored(ctx, id)
	if err != nil || !ok || rec.expired(s.nowMs()) {
		return taskRecord{}, 0, false, err
	}
	return rec, seq, true, nil
}

// expired reports whether the task is to be removed at now (Unix milliseconds).
func (r taskRecord) expired(now int64) bool { return r.Expires > 0 && r.Expires <= now }

// loadStored is load, expired tasks included.
func (s *taskStore) loadStored(ctx context.Context, id sdk.TaskID) (taskRecord, int64, bool, error) {
	s.mu.Lock()
	lt, ok := s.live[id]
	s.mu.Unlock()
	if ok {
		var t sdk.Task
		if err := json.Unmarshal(lt.task, &t); err != nil {
			return taskRecord{}, 0, false, fmt.Errorf("a2a: task %s: %w", id, err)
		}
		return taskRecord{Owner: lt.owner, Task: &t, recordTimes: lt.times}, lt.seq, true, nil
	}
	if id == "" || memory.ValidateConversationID(taskKey(id)) != nil {
		return taskRecord{}, 0, false, nil
	}
	r, ok, err := s.repo.LoadTurn(ctx, taskKey(id))
	if err != nil || !ok {
		return taskRecord{}, 0, false, err
	}
	var rec taskRecord
	if err := json.Unmarshal(r.State, &rec); err != nil || rec.Task == nil {
		return taskRecord{}, 0, false, fmt.Errorf("a2a: task %s: stored record unreadable: %v", id, err)
	}
	return rec, r.Seq, true, nil
}

// running reports whether this process runs the task.
func (s *taskStore) running(id sdk.TaskID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.live[id]
	return ok
}

// waits reports whether a task in state waits for its caller.
func waits(state sdk.TaskState) bool {
	return state == sdk.TaskStateInputRequired || state == sdk.TaskStateAuthRequired
}

// timesFor returns what a task saved in state at now says of its life; run is what its run
// said while it worked.
func (s *taskStore) timesFor(state sdk.TaskState, run recordTimes) recordTimes {
	now := s.now()
	switch {
	case state.Terminal():
		return recordTimes{Expires: now.Add(s.keepFinished).UnixMilli()}
	case waits(state):
		return recordTimes{Expires: now.Add(s.keepWaiting).UnixMilli()}
	}
	return recordTimes{Lease: now.Add(s.lease).UnixMilli(), TurnID: run.TurnID, PriorTurn: run.PriorTurn}
}

// Save stores the task; see a2asrv.TaskStore. The owner is the caller who created it. A task is
// encoded once per save (the SDK goes on changing the value it saved), and written to the
// repository when its state changes.
func (s *taskStore) Save(ctx context.Context, task *sdk.Task) error {
	if task == nil || task.ID == "" {
		return errors.New("a2a: saving a task without an id")
	}
	id := task.ID
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var (
		owner   string
		before  sdk.TaskState
		turn    *client.TurnState
		seq     int64
		existed bool
		run     recordTimes
	)
	s.mu.Lock()
	lt, live := s.live[id]
	s.mu.Unlock()
	if live {
		owner, before, seq, existed, run = lt.owner, lt.state, lt.seq, true, lt.times
	} else {
		rec, sq, ok, err := s.load(ctx, id)
		if err != nil {
			return err
		}
		if ok {
			owner, before, turn, seq, existed = rec.Owner, rec.Task.Status.State, rec.Turn, sq, true
		}
		if ok && before.Terminal() && task.Status.State != before {
			// Over: a process that lost the task (its lease passed) may not change its end.
			return fmt.Errorf("a2a: task %s is %s already", id, before)
		}
	}
	if !existed {
		owner = principal(ctx)
	}
	state := task.Status.State
	s.mu.Lock()
	if r, ok := s.runs[id]; ok {
		run = r
		delete(s.runs, id)
	}
	if !waits(state) {
		turn = nil // claimed by the resume, or over
	} else if st, ok := s.stopped[id]; ok {
		turn = st
		delete(s.stopped, id)
	}
	s.mu.Unlock()
	raw, err := json.Marshal(task)
	if err != nil {
		return fmt.Errorf("a2a: encoding task %s: %w", id, err)
	}
	persist := !existed || state != before || state.Terminal() || waits(state)
	if !persist {
		s.mu.Lock()
		s.live[id] = &liveTask{owner: owner, state: state, seq: seq, task: raw, times: run}
		s.mu.Unlock()
		return nil
	}
	times := s.timesFor(state, run)
	b, err := json.Marshal(storedRecord{Owner: owner, Task: raw, Turn: turn, recordTimes: times})
	if err != nil {
		return fmt.Errorf("a2a: encoding task %s: %w", id, err)
	}
	if err := s.repo.SaveTurn(ctx, taskKey(id), memory.TurnRecord{ID: string(id), Seq: seq + 1, State: b}); err != nil {
		s.forget(id, err)
		return fmt.Errorf("a2a: storing task %s: %w", id, err)
	}
	if state != before || !existed {
		if err := s.markWaiting(ctx, owner, task); err != nil {
			return fmt.Errorf("a2a: storing task %s: %w", id, err)
		}
	}
	if err := s.indexTask(ctx, owner, task, times.Expires); err != nil {
		return fmt.Errorf("a2a: storing task %s: %w", id, err)
	}
	s.mu.Lock()
	if state.Terminal() || waits(state) {
		delete(s.live, id)
	} else {
		s.live[id] = &liveTask{owner: owner, state: state, seq: seq + 1, task: raw, times: times}
	}
	s.mu.Unlock()
	return nil
}

// renew extends the lease of a task this process runs, writing its newest state with it. An
// error wrapping memory.ErrTurnConflict says another process took the task over: its lease had
// passed.
func (s *taskStore) renew(ctx context.Context, id sdk.TaskID) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	lt, ok := s.live[id]
	s.mu.Unlock()
	if !ok {
		return nil // not saved working yet, or done
	}
	times := lt.times
	times.Lease = s.now().Add(s.lease).UnixMilli()
	b, err := json.Marshal(storedRecord{Owner: lt.owner, Task: lt.task, recordTimes: times})
	if err != nil {
		return err
	}
	if err := s.repo.SaveTurn(ctx, taskKey(id), memory.TurnRecord{ID: string(id), Seq: lt.seq + 1, State: b}); err != nil {
		s.forget(id, err)
		return err
	}
	s.mu.Lock()
	s.live[id] = &liveTask{owner: lt.owner, state: lt.state, seq: lt.seq + 1, task: lt.task, times: times}
	s.mu.Unlock()
	return nil
}

// forget drops what this process kept of a task whose record another process changed (it took
// the task over, its lease having passed): the stored task is the one to read from now on.
func (s *taskStore) forget(id sdk.TaskID, err error) {
	if !errors.Is(err, memory.ErrTurnConflict) {
		return
	}
	s.mu.Lock()
	delete(s.live, id)
	delete(s.stopped, id)
	s.mu.Unlock()
}

// setRun says which turn the task's run starting continues, for its first save.
func (s *taskStore) setRun(id sdk.TaskID, r recordTimes) {
	s.mu.Lock()
	s.runs[id] = r
	s.mu.Unlock()
}

// setTurn keeps the stopped turn the task waits on, for the save of its input-required state.
func (s *taskStore) setTurn(id sdk.TaskID, st *client.TurnState) {
	s.mu.Lock()
	s.stopped[id] = st
	s.mu.Unlock()
}

// Get returns the task; see a2asrv.TaskStore.
func (s *taskStore) Get(ctx context.Context, id sdk.TaskID) (*sdk.Task, error) {
	rec, _, ok, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sdk.ErrTaskNotFound
	}
	return rec.Task, nil // decoded for this call: a copy, as the SDK's own store returns
}
