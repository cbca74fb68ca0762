package wire

import (
	"errors"
	"testing"

	"github.com/wield-ai/wield/content"
)

func TestMessageError(t *testing.T) {
	u := &content.Unsupported{Provider: "x", Part: content.Audio([]byte{1}, "audio/wav"), Reason: "no audio"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{u, "x: cannot send an audio part (audio/wav): no audio (message 2)"},
		{errors.New("boom"), "x: message 2: boom"},
		{errors.New("x: boom"), "message 2: x: boom"},
	} {
		got := MessageError("x", 2, tc.err)
		if got.Error() != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("MessageError(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if !IsHTTP("https://a") || !IsHTTP("http://a") || IsHTTP("gs://a") || IsHTTP("data:image/png;base64,") {
		t.Error("IsHTTP")
	}
}
