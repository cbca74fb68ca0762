package testenv

import "sync/atomic"

// Peak counts the calls running at once and the most that ever ran together, for tests of a
// concurrency bound. The zero value is ready to use.
type Peak struct{ running, most atomic.Int64 }

// Enter counts a call in and returns how many run now, itself included.
func (p *Peak) Enter() int64 {
	n := p.running.Add(1)
	for {
		m := p.most.Load()
		if n <= m || p.most.CompareAndSwap(m, n) {
			return n
		}
	}
}

// Leave counts a call out.
func (p *Peak) Leave() { p.running.Add(-1) }

// Most returns the most calls that ran together.
func (p *Peak) Most() int64 { return p.most.Load() }

// Running returns how many calls run now.
func (p *Peak) Running() int64 { return p.running.Load() }
