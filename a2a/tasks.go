package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

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
}

// taskStore is the SDK's task store over a memory.TurnRepository, so that tasks live where turns
// do (in process, SQLite, PostgreSQL) and survive a restart. A task is written through to the
// repository when its state changes; the events between (progress of a working task) are kept
// in process only, since a restart ends the turn they belong to anyway.
type taskStore struct {
	repo memory.TurnRepository

	wmu  sync.Mutex // one update at a time: each reads the step it follows
	mu   sync.Mutex
	live map[sdk.TaskID]*liveTask // tasks whose newest save is not in repo
	// stopped holds a turn that stopped until its task's input-required state is saved, which
	// the SDK does after the events before it.
	stopped map[sdk.TaskID]*client.TurnState
}

type liveTask struct {
	rec taskRecord
	seq int64 // the repository's step of the record
}

func newTaskStore(repo memory.TurnRepository) *taskStore {
	return &taskStore{repo: repo, live: map[sdk.TaskID]*liveTask{}, stopped: map[sdk.TaskID]*client.TurnState{}}
}

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
	if err != nil || !ok || rec.Task.Status.State != sdk.TaskStateInputRequired {
		return "", err
	}
	return id, nil
}

// markWaiting records whether the task waits for input in its conversation.
func (s *taskStore) markWaiting(ctx context.Context, rec taskRecord) error {
	key := waitingKey(conversation(rec.Owner, rec.Task.ContextID))
	if memory.ValidateConversationID(key) != nil {
		return nil
	}
	cur, ok, err := s.repo.LoadTurn(ctx, key)
	if err != nil {
		return err
	}
	id := string(rec.Task.ID)
	if rec.Task.Status.State == sdk.TaskStateInputRequired {
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

// load returns the task's record and step, or ok false when there is none (or the id could not
// name one).
func (s *taskStore) load(ctx context.Context, id sdk.TaskID) (taskRecord, int64, bool, error) {
	s.mu.Lock()
	if lt, ok := s.live[id]; ok {
		rec, seq := lt.rec, lt.seq
		s.mu.Unlock()
		return rec, seq, true, nil
	}
	s.mu.Unlock()
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

// Save stores the task; see a2asrv.TaskStore. The owner is the caller who created it.
func (s *taskStore) Save(ctx context.Context, task *sdk.Task) error {
	if task == nil || task.ID == "" {
		return errors.New("a2a: saving a task without an id")
	}
	return s.update(ctx, task.ID, func(rec *taskRecord, existed bool) {
		if !existed {
			rec.Owner = principal(ctx)
		}
		rec.Task = task
		if task.Status.State != sdk.TaskStateInputRequired {
			rec.Turn = nil // claimed by the resume, or over
			return
		}
		s.mu.Lock()
		if st, ok := s.stopped[task.ID]; ok {
			rec.Turn = st
			delete(s.stopped, task.ID)
		}
		s.mu.Unlock()
	})
}

// setTurn keeps the stopped turn the task waits on, for the save of its input-required state.
func (s *taskStore) setTurn(id sdk.TaskID, st *client.TurnState) {
	s.mu.Lock()
	s.stopped[id] = st
	s.mu.Unlock()
}

func (s *taskStore) update(ctx context.Context, id sdk.TaskID, change func(*taskRecord, bool)) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	rec, seq, existed, err := s.load(ctx, id)
	if err != nil {
		return err
	}
	var before sdk.TaskState
	if existed {
		before = rec.Task.Status.State
	}
	// The record is copied: the SDK keeps using the task value it saved.
	change(&rec, existed)
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("a2a: encoding task %s: %w", id, err)
	}
	var cp taskRecord
	if err := json.Unmarshal(b, &cp); err != nil {
		return fmt.Errorf("a2a: encoding task %s: %w", id, err)
	}
	state := cp.Task.Status.State
	persist := !existed || state != before || cp.Turn != nil || state.Terminal() || state == sdk.TaskStateInputRequired
	s.mu.Lock()
	defer s.mu.Unlock()
	if !persist {
		s.live[id] = &liveTask{rec: cp, seq: seq}
		return nil
	}
	if err := s.repo.SaveTurn(ctx, taskKey(id), memory.TurnRecord{ID: string(id), Seq: seq + 1, State: b}); err != nil {
		return fmt.Errorf("a2a: storing task %s: %w", id, err)
	}
	if state != before || !existed {
		if err := s.markWaiting(ctx, cp); err != nil {
			return fmt.Errorf("a2a: storing task %s: %w", id, err)
		}
	}
	if state.Terminal() || state == sdk.TaskStateInputRequired || state == sdk.TaskStateAuthRequired {
		delete(s.live, id)
	} else {
		s.live[id] = &liveTask{rec: cp, seq: seq + 1}
	}
	return nil
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
	// A copy, as the SDK's own store returns.
	b, err := json.Marshal(rec.Task)
	if err != nil {
		return nil, err
	}
	var t sdk.Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	return &t, nil
}
