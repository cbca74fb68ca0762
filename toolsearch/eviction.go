package toolsearch

import (
	"container/list"
	"sync"
	"time"
)

// DefaultMaxSessions is the number of sessions the [Advisor] keeps by default ([LRU]).
const DefaultMaxSessions = 1000

// Eviction decides which sessions to forget. It is asked lazily, whenever a turn starts or ends,
// never from a background goroutine: sessions are visited from the least recently used on, and
// the first session kept ends the visit. A strategy must therefore keep every session used more
// recently than one it keeps; all strategies of this package do. Sessions in the middle of a turn
// are never evicted.
type Eviction interface {
	// Evict reports whether to forget s at time now.
	Evict(s SessionInfo, now time.Time) bool
}

// SessionInfo describes a session for an [Eviction] strategy.
type SessionInfo struct {
	// ID is the session id.
	ID string
	// Created is when the session was first seen; LastUsed when a turn last started or ended in it.
	Created, LastUsed time.Time
	// Sessions is the number of sessions held, this one included.
	Sessions int
}

// EvictionFunc adapts a function to [Eviction].
type EvictionFunc func(s SessionInfo, now time.Time) bool

// Evict calls f.
func (f EvictionFunc) Evict(s SessionInfo, now time.Time) bool { return f(s, now) }

// LRU keeps the n most recently used sessions; n below 1 keeps one.
func LRU(n int) Eviction {
	n = max(n, 1)
	return EvictionFunc(func(s SessionInfo, _ time.Time) bool { return s.Sessions > n })
}

// TTL forgets sessions unused for longer than idle.
func TTL(idle time.Duration) Eviction {
	return EvictionFunc(func(s SessionInfo, now time.Time) bool { return now.Sub(s.LastUsed) > idle })
}

// Never keeps every session until it is evicted explicitly.
func Never() Eviction {
	return EvictionFunc(func(SessionInfo, time.Time) bool { return false })
}

// Always forgets every session as soon as its turn ends: tools are indexed anew on every turn.
func Always() Eviction {
	return EvictionFunc(func(SessionInfo, time.Time) bool { return true })
}

// Any forgets a session when any of the strategies would: Any(LRU(100), TTL(time.Hour)) keeps at
// most 100 sessions, none idle for more than an hour.
func Any(strategies ...Eviction) Eviction {
	return EvictionFunc(func(s SessionInfo, now time.Time) bool {
		for _, e := range strategies {
			if e != nil && e.Evict(s, now) {
				return true
			}
		}
		return false
	})
}

// sessions tracks the sessions of an advisor in order of use and evicts them by a strategy.
type sessions struct {
	mu     sync.Mutex
	policy Eviction
	now    func() time.Time
	order  list.List // of *session, most recently used at the front
	byID   map[string]*list.Element
}

// session is the state an advisor keeps for one conversation between turns.
type session struct {
	info  SessionInfo // Sessions unset
	inUse int         // turns running in the session

	mu  sync.Mutex
	set *toolSet // the tool set of its last turn, held for the next; nil once gone
}

// use makes set the session's tool set, taking a hold on it, and returns the set it used
// before, whose hold the caller must release (nil if none or the same).
func (ss *session) use(set *toolSet, sets *toolSets) *toolSet {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.set == set {
		return nil
	}
	sets.hold(set)
	old := ss.set
	ss.set = set
	return old
}

// take returns the session's tool set and forgets it: the caller releases its hold.
func (ss *session) take() *toolSet {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	set := ss.set
	ss.set = nil
	return set
}

func newSessions(policy Eviction, now func() time.Time) *sessions {
	if policy == nil {
		policy = LRU(DefaultMaxSessions)
	}
	if now == nil {
		now = time.Now
	}
	return &sessions{policy: policy, now: now, byID: make(map[string]*list.Element)}
}

// acquire marks the session used by one more turn, creating it if needed, and evicts sessions
// the strategy lets go. It returns the session and the sessions evicted, whose tool sets the
// caller must release.
func (s *sessions) acquire(id string) (*session, []*session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var ss *session
	if e, ok := s.byID[id]; ok {
		ss = e.Value.(*session)
		s.order.MoveToFront(e)
	} else {
		ss = &session{info: SessionInfo{ID: id, Created: now}}
		s.byID[id] = s.order.PushFront(ss)
	}
	ss.info.LastUsed = now
	ss.inUse++
	return ss, s.evict(now)
}

// release ends a turn in the session and evicts sessions the strategy lets go, this one
// included when its last turn ended.
func (s *sessions) release(ss *session) []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	ss.inUse--
	if e, ok := s.byID[ss.info.ID]; ok && e.Value == ss {
		ss.info.LastUsed = now
		s.order.MoveToFront(e)
	}
	return s.evict(now)
}

// evict visits sessions from the least recently used, skipping those in a turn, until the
// strategy keeps one. Called with s.mu held.
func (s *sessions) evict(now time.Time) []*session {
	var gone []*session
	for e := s.order.Back(); e != nil; {
		prev := e.Prev()
		ss := e.Value.(*session)
		if ss.inUse == 0 {
			info := ss.info
			info.Sessions = s.order.Len()
			if !s.policy.Evict(info, now) {
				break
			}
			s.order.Remove(e)
			delete(s.byID, ss.info.ID)
			gone = append(gone, ss)
		}
		e = prev
	}
	return gone
}

// remove forgets the session now, even in a turn, and returns it (nil if it was not held). A
// turn still running in it goes on with what it has.
func (s *sessions) remove(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[id]
	if !ok {
		return nil
	}
	s.order.Remove(e)
	delete(s.byID, id)
	return e.Value.(*session)
}

// set returns the tool set of the session's last turn, nil for an unknown session or one that
// has none.
func (s *sessions) set(id string) *toolSet {
	s.mu.Lock()
	e, ok := s.byID[id]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	ss := e.Value.(*session)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.set
}

// len returns the number of sessions held.
func (s *sessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}
