// Package answers matches what a protocol's client sends to resume a stopped turn with the calls
// the turn waits on, by the ids the protocol gave those calls (a2a's call ids, agui's interrupt
// ids).
package answers

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Match decides each of pending, in order, with the answer of the same id. Every pending call
// needs exactly one answer, and every answer a pending call; the errors name the id, calling it
// a noun ("call", "interrupt"). An error of decide is wrapped with its call's id.
func Match[P, A, D any](noun string, pending []P, pendingID func(P) string, answers []A, answerID func(A) string, decide func(P, A) (D, error)) ([]D, error) {
	byID := make(map[string]A, len(answers))
	for _, a := range answers {
		id := answerID(a)
		if _, dup := byID[id]; dup {
			return nil, fmt.Errorf("%s %q is answered twice", noun, id)
		}
		byID[id] = a
	}
	out := make([]D, 0, len(pending))
	for _, p := range pending {
		id := pendingID(p)
		a, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%s %q has no answer", noun, id)
		}
		delete(byID, id)
		d, err := decide(p, a)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", noun, id, err)
		}
		out = append(out, d)
	}
	for id := range byID {
		return nil, fmt.Errorf("no pending %s %q", noun, id)
	}
	return out, nil
}

// Arguments reads the edited arguments of an answer: a JSON object, or a string holding one (as
// clients that send arguments as the model wrote them do); none ("") when raw is empty or null.
func Arguments(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", errors.New(`"arguments" is not a JSON object`)
	}
	return string(raw), nil
}
