package toolsearch

import (
	"context"
	"fmt"
	"sync"

	"github.com/wield-ai/wield/tool"
)

// store holds the built tool sets of an index's sessions. Sessions whose tool sets are identical
// (same content key) share one built set, so a thousand conversations over the same catalog cost
// one index, not a thousand.
type store[T any] struct {
	mu       sync.RWMutex
	sessions map[string]*built[T]
	byKey    map[string]*built[T]
}

type built[T any] struct {
	key  string
	v    T
	refs int
}

// get returns the session's built set, for a search in ctx: a search whose context ended gets
// its error.
func (s *store[T]) get(ctx context.Context, session string) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	s.mu.RLock()
	b, ok := s.sessions[session]
	s.mu.RUnlock()
	if !ok {
		var zero T
		return zero, fmt.Errorf("%w: %q", ErrUnknownSession, session)
	}
	return b.v, nil
}

// index makes defs, sorted by name, the session's tool set, building it with build unless
// another session already holds one of the same content.
func (s *store[T]) index(ctx context.Context, session string, defs []tool.Definition, build func(sorted []tool.Definition) (T, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sorted, err := sortDefs(defs)
	if err != nil {
		return err
	}
	return s.put(session, contentKey(sorted), func() (T, error) { return build(sorted) })
}

// put makes the set with the given key the session's, building it with build unless another
// session already holds it. build runs without the lock, so a slow build (an embedding API) does
// not hold up searches in other sessions.
func (s *store[T]) put(session, key string, build func() (T, error)) error {
	s.mu.Lock()
	if s.link(session, key) {
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()

	v, err := build()
	if err != nil {
		return err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.link(session, key) { // built meanwhile by another session
		return nil
	}
	if s.sessions == nil {
		s.sessions = make(map[string]*built[T])
		s.byKey = make(map[string]*built[T])
	}
	s.unlink(session)
	b := &built[T]{key: key, v: v, refs: 1}
	s.byKey[key] = b
	s.sessions[session] = b
	return nil
}

// link points session at the existing set with key, if there is one. Called with s.mu held.
func (s *store[T]) link(session, key string) bool {
	b, ok := s.byKey[key]
	if !ok {
		return false
	}
	if cur := s.sessions[session]; cur != b {
		s.unlink(session)
		b.refs++
		s.sessions[session] = b
	}
	return true
}

// unlink drops the session's reference, and the set when it was the last. Called with s.mu held.
func (s *store[T]) unlink(session string) {
	b, ok := s.sessions[session]
	if !ok {
		return
	}
	delete(s.sessions, session)
	if b.refs--; b.refs == 0 {
		delete(s.byKey, b.key)
	}
}

// clear forgets the session.
func (s *store[T]) clear(session string) {
	s.mu.Lock()
	s.unlink(session)
	s.mu.Unlock()
}

// counts returns the number of sessions and of distinct built sets.
func (s *store[T]) counts() (sessions, sets int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.sessions), len(s.byKey)
}
