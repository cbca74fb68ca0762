package wire

import (
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/wield-ai/wield/content"
)

// MessageError names the message an error is in. A refused part's error keeps its own words
// first ("openai: cannot send an audio part …"), so the provider and the part lead the message.
func MessageError(provider string, i int, err error) error {
	if u := (*content.Unsupported)(nil); errors.As(err, &u) {
		return fmt.Errorf("%w (message %d)", err, i)
	}
	if strings.HasPrefix(err.Error(), provider+": ") {
		return fmt.Errorf("message %d: %w", i, err)
	}
	return fmt.Errorf("%s: message %d: %w", provider, i, err)
}

// IsHTTP reports whether u is an http or https URL, the only URLs a provider can fetch itself.
func IsHTTP(u string) bool {
	return strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")
}

// AppendParts appends to out what part makes of each of parts, in order, passing over the parts
// it makes nothing of (ok false); the first error stops it.
func AppendParts[S ~[]T, T any](out S, parts iter.Seq[content.Part], part func(content.Part) (v T, ok bool, err error)) (S, error) {
	for p := range parts {
		v, ok, err := part(p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, v)
		}
	}
	return out, nil
}
