package temporal

import (
	"sync"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
)

// maxAgentBeat bounds the events a tool call's heartbeat details carry of the agents it runs
// (their JSON): past it the oldest are left out, and a reader that fell behind misses them.
const maxAgentBeat = 64 << 10

// toolBeat is the heartbeat detail of a tool call of the client's loop: the tool's progress,
// flat as older readers decode it (tool.Progress), and the latest events of the agents the call
// runs ([client.WithAgentEvents]), which [Turn.Events] shows while the call runs.
type toolBeat struct {
	tool.Progress
	// NoProgress says the tool has not reported progress.
	NoProgress bool `json:",omitempty"`
	// First is the index of Events[0] among all the events the call's agents sent.
	First int `json:",omitempty"`
	// Events are the agents' events, attributed ([client.Event.Agent]).
	Events []client.Event `json:",omitempty"`
}

// progress returns the tool's last report, nil if none.
func (b *toolBeat) progress() *tool.Progress {
	if b.NoProgress {
		return nil
	}
	return &b.Progress
}

// agentLog keeps the latest events of the agents a tool call runs, for its heartbeats. Text
// chunks not yet sent are joined, so that a reader gets a sentence in one event rather than
// each token in one.
type agentLog struct {
	mu     sync.Mutex
	events []client.Event
	sizes  []int
	first  int // the index of events[0] among all kept
	bytes  int
	sent   int // events below this index went out in a heartbeat: they no longer change
	dirty  bool
}

// add keeps ev (an agent's event); an event over the bound alone is left out.
func (l *agentLog) add(ev *client.Event) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.events); n > 0 && l.first+n-1 >= l.sent {
		if prev, ok := chunkText(&l.events[n-1]); ok {
			if text, ok := chunkText(ev); ok && ev.Agent() == l.events[n-1].Agent() {
				joined := l.events[n-1] // a copy: it keeps the agent's attribution
				joined.Chunk = &chat.Response{Model: ev.Chunk.Model, ID: ev.Chunk.ID, Generations: []chat.Generation{{Message: chat.Assistant(prev + text)}}}
				size := encodedSize(joined)
				if l.bytes-l.sizes[n-1]+size <= maxAgentBeat {
					l.bytes += size - l.sizes[n-1]
					l.events[n-1], l.sizes[n-1], l.dirty = joined, size, true
					return true
				}
			}
		}
	}
	size := encodedSize(*ev)
	if size == 0 || size > maxAgentBeat {
		return true
	}
	l.events, l.sizes = append(l.events, *ev), append(l.sizes, size)
	l.bytes += size
	for l.bytes > maxAgentBeat {
		l.bytes -= l.sizes[0]
		l.events, l.sizes = l.events[1:], l.sizes[1:]
		l.first++
	}
	l.dirty = true
	return true
}

// chunkText returns the text of an event that is a chunk of text alone.
func chunkText(ev *client.Event) (string, bool) {
	c := ev.Chunk
	if c == nil || len(c.Generations) != 1 || c.Usage != (chat.Usage{}) || ev.Tool != nil || ev.ToolDelta != nil {
		return "", false
	}
	g := &c.Generations[0]
	m := &g.Message
	if g.Index != 0 || g.FinishReason != "" || m.Content == "" || len(m.Parts) > 0 || len(m.ToolCalls) > 0 || len(m.Reasoning) > 0 || len(m.ToolResults) > 0 {
		return "", false
	}
	return m.Content, true
}

// beat fills b with the kept events, if any changed since the last, and marks them sent.
func (l *agentLog) beat(b *toolBeat) (changed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	changed, l.dirty = l.dirty, false
	b.First, b.Events = l.first, append([]client.Event(nil), l.events...)
	l.sent = l.first + len(l.events)
	return changed
}

// streamAgents sends the log's events with the call's heartbeats every interval while they
// change, until the returned stop.
func streamAgents(hb *beater, every time.Duration) (*agentLog, func()) {
	l := &agentLog{}
	hb.mu.Lock()
	hb.agents = l
	hb.mu.Unlock()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			l.mu.Lock()
			dirty := l.dirty
			l.mu.Unlock()
			if dirty {
				hb.send()
			}
		}
	})
	return l, func() {
		close(done)
		wg.Wait()
	}
}
