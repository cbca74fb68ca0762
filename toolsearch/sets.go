package toolsearch

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/wield-ai/wield/tool"
)

// toolSets tracks the tool sets an advisor has in its index, each an index session shared by
// every session and turn whose searchable tools have the same content. A set is cleared from
// the index when its last holder lets go of it.
type toolSets struct {
	mu   sync.Mutex
	byID map[string]*toolSet
}

// toolSet is one tool set in the index.
type toolSet struct {
	id    string // the index session
	holds int    // sessions and turns holding the set; guarded by toolSets.mu

	mu      sync.Mutex // serializes indexing and clearing
	indexed bool

	// print is the fingerprint of the request tools of the set's last turn: the next turn
	// compares its tools with it rather than hash them.
	print atomic.Pointer[fingerprint]

	prereqOnce sync.Once
	prereqs    *Prerequisites
}

// prerequisites returns the set's prerequisites, read from defs at the first call: most turns
// never search, and those that do share the result.
func (set *toolSet) prerequisites(defs func() []tool.Definition) *Prerequisites {
	set.prereqOnce.Do(func() { set.prereqs = NewPrerequisites(defs()) })
	return set.prereqs
}

// acquire returns the set with the given index session, taking a hold on it.
func (s *toolSets) acquire(id string) *toolSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.byID[id]
	if !ok {
		if s.byID == nil {
			s.byID = make(map[string]*toolSet)
		}
		set = &toolSet{id: id}
		s.byID[id] = set
	}
	set.holds++
	return set
}

// hold takes one more hold on a set already held.
func (s *toolSets) hold(set *toolSet) {
	s.mu.Lock()
	set.holds++
	s.mu.Unlock()
}

// release lets go of one hold on set and, if it was the last, clears the set from the index.
// The set stays known while it is cleared, so that a turn taking it meanwhile waits for the
// clearing and indexes it again, rather than racing the clearing with a new set of the same
// index session.
func (s *toolSets) release(ctx context.Context, set *toolSet, ix Index) error {
	s.mu.Lock()
	set.holds--
	last := set.holds == 0
	s.mu.Unlock()
	if !last {
		return nil
	}
	set.mu.Lock()
	defer set.mu.Unlock()
	var err error
	if set.indexed && !s.held(set) {
		set.indexed = false
		err = ix.Clear(ctx, set.id)
	}
	s.mu.Lock()
	if set.holds == 0 && s.byID[set.id] == set {
		delete(s.byID, set.id)
	}
	s.mu.Unlock()
	return err
}

func (s *toolSets) held(set *toolSet) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return set.holds > 0
}

// ensureIndexed indexes the set's definitions unless the set is indexed already; defs is
// called only to index.
func (set *toolSet) ensureIndexed(ctx context.Context, ix Index, defs func() []tool.Definition) error {
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.indexed {
		return nil
	}
	if err := ix.IndexTools(ctx, set.id, defs()); err != nil {
		return err
	}
	set.indexed = true
	return nil
}

// reindex indexes the set's definitions again, for an index that lost the set.
func (set *toolSet) reindex(ctx context.Context, ix Index, defs func() []tool.Definition) error {
	set.mu.Lock()
	defer set.mu.Unlock()
	if err := ix.IndexTools(ctx, set.id, defs()); err != nil {
		return err
	}
	set.indexed = true
	return nil
}
