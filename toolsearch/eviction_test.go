package toolsearch

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func held(s *sessions) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for e := s.order.Front(); e != nil; e = e.Next() {
		ids = append(ids, e.Value.(*session).info.ID)
	}
	return ids
}

// ids returns the ids of sessions.
func ids(ss []*session) []string {
	var out []string
	for _, x := range ss {
		out = append(out, x.info.ID)
	}
	return out
}

// runTurn runs one whole turn in session id and returns what was evicted on the way.
func runTurn(s *sessions, id string) []string {
	ss, gone := s.acquire(id)
	return ids(append(gone, s.release(ss)...))
}

func TestLRU(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	s := newSessions(LRU(3), c.now)
	var gone []string
	for _, id := range []string{"a", "b", "c", "a", "d", "e"} {
		c.advance(time.Second)
		gone = append(gone, runTurn(s, id)...)
	}
	if !slices.Equal(gone, []string{"b", "c"}) {
		t.Errorf("evicted %v, want b then c", gone)
	}
	if got := held(s); !slices.Equal(got, []string{"e", "d", "a"}) {
		t.Errorf("held %v", got)
	}
}

func TestDefaultIsLRU1000(t *testing.T) {
	s := newSessions(nil, nil)
	for i := range DefaultMaxSessions + 5 {
		runTurn(s, fmt.Sprint(i))
	}
	if s.len() != DefaultMaxSessions {
		t.Errorf("held %d sessions, want %d", s.len(), DefaultMaxSessions)
	}
	if _, ok := s.byID["0"]; ok {
		t.Error("the oldest session survived")
	}
}

func TestTTL(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	s := newSessions(TTL(time.Minute), c.now)
	runTurn(s, "a")
	c.advance(40 * time.Second)
	runTurn(s, "b")
	c.advance(30 * time.Second) // a idle 70s, b 30s
	if gone := runTurn(s, "c"); !slices.Equal(gone, []string{"a"}) {
		t.Errorf("evicted %v, want a", gone)
	}
	c.advance(2 * time.Minute)
	ss, gone := s.acquire("b") // b is touched before the visit, c has expired
	if !slices.Equal(ids(gone), []string{"c"}) {
		t.Errorf("evicted %v, want c", gone)
	}
	s.release(ss)
	if got := held(s); !slices.Equal(got, []string{"b"}) {
		t.Errorf("held %v", got)
	}
}

func TestNeverAndAlways(t *testing.T) {
	never := newSessions(Never(), nil)
	for i := range 50 {
		if gone := runTurn(never, fmt.Sprint(i)); len(gone) != 0 {
			t.Fatalf("Never evicted %v", gone)
		}
	}
	if never.len() != 50 {
		t.Errorf("Never held %d", never.len())
	}

	always := newSessions(Always(), nil)
	ss, gone := always.acquire("a")
	if len(gone) != 0 {
		t.Errorf("Always evicted a session in its turn: %v", gone)
	}
	if gone := always.release(ss); !slices.Equal(ids(gone), []string{"a"}) {
		t.Errorf("Always kept a after its turn: %v", gone)
	}
	if always.len() != 0 {
		t.Errorf("Always held %d", always.len())
	}
}

func TestAny(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	s := newSessions(Any(LRU(2), nil, TTL(time.Minute)), c.now)
	runTurn(s, "a")
	runTurn(s, "b")
	gone := runTurn(s, "c") // LRU evicts a
	c.advance(2 * time.Minute)
	gone = append(gone, runTurn(s, "d")...) // TTL evicts b and c
	if !slices.Equal(gone, []string{"a", "b", "c"}) {
		t.Errorf("evicted %v", gone)
	}
	if Any().Evict(SessionInfo{}, time.Now()) {
		t.Error("Any() of nothing evicts")
	}
}

func TestSessionsInTurnAreKept(t *testing.T) {
	s := newSessions(LRU(1), nil)
	a, _ := s.acquire("a")
	b, gone := s.acquire("b")
	if len(gone) != 0 {
		t.Fatalf("evicted %v while both are in a turn", gone)
	}
	// a's turn ends: b is still in its turn, so a goes even though it was just used.
	if gone := s.release(a); !slices.Equal(ids(gone), []string{"a"}) {
		t.Errorf("release a evicted %v, want a", gone)
	}
	if gone := s.release(b); len(gone) != 0 {
		t.Errorf("release b evicted %v", gone)
	}
	if got := held(s); !slices.Equal(got, []string{"b"}) {
		t.Errorf("held %v, want b", got)
	}
}

func TestNestedTurnsInOneSession(t *testing.T) {
	s := newSessions(Always(), nil)
	a1, _ := s.acquire("a")
	a2, _ := s.acquire("a")
	if a1 != a2 {
		t.Fatal("one session, two states")
	}
	if gone := s.release(a1); len(gone) != 0 {
		t.Errorf("evicted %v while a turn still runs", gone)
	}
	if gone := s.release(a2); !slices.Equal(ids(gone), []string{"a"}) {
		t.Errorf("evicted %v after the last turn", gone)
	}
}

func TestRemove(t *testing.T) {
	s := newSessions(Never(), nil)
	runTurn(s, "a")
	ss, _ := s.acquire("b")
	if s.remove("a") == nil || s.remove("b") == nil || s.remove("zzz") != nil {
		t.Error("remove reported wrongly")
	}
	// The turn in b ends after b was removed: nothing breaks and b is not resurrected.
	s.release(ss)
	if s.len() != 0 {
		t.Errorf("held %v", held(s))
	}
	// A new turn in b starts a new session.
	if ss2, _ := s.acquire("b"); ss2 == ss {
		t.Error("removed state reused")
	}
}

func TestSessionsConcurrent(t *testing.T) {
	s := newSessions(LRU(5), nil)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				id := fmt.Sprint((w*7 + i) % 13)
				ss, _ := s.acquire(id)
				if i%17 == 0 {
					s.remove(id)
				}
				s.release(ss)
			}
		}()
	}
	wg.Wait()
	if n := s.len(); n > 5 {
		t.Errorf("held %d sessions, want at most 5", n)
	}
}
