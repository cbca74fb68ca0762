// Package cachepoint holds what Anthropic's Messages API and Bedrock's Converse API share about
// prompt-caching points: where they go (after the tools, the system prompt, the last turns), how
// many a request may carry, how long a cached prefix may live, and how a call sets them in
// [chat.Options.Extra]. Where each API puts a point in its request stays with its provider.
package cachepoint

import "fmt"

// Layout is where a request's cache points go. anthropic.Cache and bedrock.Cache have its fields
// and convert to it.
type Layout struct {
	Tools    bool
	System   bool
	Messages int
	TTL      string
}

// Points returns the most points l puts in a request.
func (l Layout) Points() int {
	n := l.Messages
	if l.Tools {
		n++
	}
	if l.System {
		n++
	}
	return n
}

// Check rejects a layout the API would refuse: negative Messages, more than most points, or a
// TTL other than the default, "5m" and "1h". The errors start with provider and call the points
// by the API's name for them (points), and the API api.
func (l Layout) Check(provider, points, api string, most int) error {
	if l.Messages < 0 {
		return fmt.Errorf("%s: cache: Messages %d is negative", provider, l.Messages)
	}
	if n := l.Points(); n > most {
		return fmt.Errorf("%s: cache: %d %s, %s accepts at most %d", provider, n, points, api, most)
	}
	switch l.TTL {
	case "", "5m", "1h":
		return nil
	}
	return fmt.Errorf(`%s: cache: TTL %q is none of "", "5m", "1h"`, provider, l.TTL)
}

// FromExtra reads a call's cache setting from extra[key]: a C, a *C (nil turns caching off), or a
// bool (true is auto, false turns caching off). Without the key the setting is def. The setting
// read must pass check.
func FromExtra[C ~struct {
	Tools    bool
	System   bool
	Messages int
	TTL      string
}](extra map[string]any, key, provider string, def, auto C, check func(C) error) (C, error) {
	v, ok := extra[key]
	if !ok {
		return def, nil
	}
	var c C
	switch v := v.(type) {
	case C:
		c = v
	case *C:
		if v != nil {
			c = *v
		}
	case bool:
		if v {
			c = auto
		}
	case nil:
	default:
		return C{}, fmt.Errorf("%s: %s is a %T, want %T or a bool", provider, key, v, c)
	}
	if err := check(c); err != nil {
		return C{}, err
	}
	return c, nil
}
