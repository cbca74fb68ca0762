package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/wield-ai/wield/chat"
)

// hintError is a failure told in the user's terms, with what to do about it.
type hintError struct {
	msg, hint string
	err       error
}

func (e *hintError) Error() string {
	if e.hint == "" {
		return e.msg
	}
	return e.msg + "\nhint: " + e.hint
}

func (e *hintError) Unwrap() error { return e.err }

// explain turns a failure talking to the model of s into what went wrong for the user, with a
// hint for the common mistakes: a base URL without its version path, a model the provider does
// not have, a key missing or refused, a server that is not running. Other errors pass unchanged.
func (a *app) explain(err error, s modelSpec) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var he *hintError
	if errors.As(err, &he) {
		return err
	}
	where := s.url()
	var pe *chat.ProviderError
	if errors.As(err, &pe) {
		msg := strings.TrimSpace(pe.Message)
		said := fmt.Sprintf("HTTP %d", pe.StatusCode)
		if msg != "" && msg != http.StatusText(pe.StatusCode) {
			said += ": " + oneLine(msg, 300)
		} else {
			said += " " + http.StatusText(pe.StatusCode)
		}
		lower := strings.ToLower(msg + " " + pe.Code + " " + pe.Type)
		switch {
		case (pe.StatusCode == http.StatusNotFound || pe.StatusCode == http.StatusBadRequest) && aboutModel(lower):
			return &hintError{
				msg:  fmt.Sprintf("%s has no model %q (%s)", providerAt(s, where), s.name, said),
				hint: fmt.Sprintf("run 'wield models%s' to list the models it serves", listArgs(s)),
				err:  err,
			}
		case pe.StatusCode == http.StatusNotFound && s.provider == "openai" && !hasVersionPath(s.baseURL) && s.baseURL != "":
			return &hintError{
				msg:  fmt.Sprintf("the server at %s answered %s", where, said),
				hint: fmt.Sprintf("OpenAI-compatible servers serve their API under a version path: try --base-url %s", withV1(s.baseURL)),
				err:  err,
			}
		case pe.StatusCode == http.StatusNotFound:
			return &hintError{
				msg:  fmt.Sprintf("%s answered %s", providerAt(s, where), said),
				hint: fmt.Sprintf("check the base URL (%s) and the model name; 'wield models%s' lists the models", where, listArgs(s)),
				err:  err,
			}
		case pe.StatusCode == http.StatusUnauthorized || pe.StatusCode == http.StatusForbidden:
			if s.apiKey == "" {
				hint := "pass --api-key KEY or set WIELD_API_KEY"
				if p := providerNamed(s.provider); p != nil && len(p.keyVars) > 0 && s.baseURL == "" {
					hint = "set " + strings.Join(p.keyVars, " or ")
				}
				return &hintError{msg: fmt.Sprintf("%s wants an API key (%s)", providerAt(s, where), said), hint: hint, err: err}
			}
			from := s.keyFrom
			return &hintError{
				msg:  fmt.Sprintf("%s refused the API key from %s (%s)", providerAt(s, where), from, said),
				hint: fmt.Sprintf("check %s: it may be mistyped, revoked, or for another provider", from),
				err:  err,
			}
		case pe.StatusCode == http.StatusTooManyRequests:
			return &hintError{
				msg:  fmt.Sprintf("%s is limiting requests (%s)", providerAt(s, where), said),
				hint: "wait a moment and ask again, or check the account's quota",
				err:  err,
			}
		}
		return fmt.Errorf("%s: %s", providerAt(s, where), said)
	}
	var ue *url.Error
	if errors.As(err, &ue) && !ue.Timeout() {
		var oe *net.OpError
		var de *net.DNSError
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return &hintError{
				msg:  fmt.Sprintf("nothing answers at %s (connection refused)", where),
				hint: "is the server running? check the address (--base-url, the configuration file, or the provider's environment variable)",
				err:  err,
			}
		case errors.As(err, &de):
			return &hintError{msg: fmt.Sprintf("cannot find the host of %s (%v)", where, de), hint: "check the address for typos", err: err}
		case errors.As(err, &oe):
			return fmt.Errorf("cannot reach %s: %v", where, oe)
		}
	}
	return err
}

// aboutModel reports whether a provider's error text is about the model name.
func aboutModel(lower string) bool {
	if strings.Contains(lower, "model_not_found") {
		return true
	}
	if !strings.Contains(lower, "model") {
		return false
	}
	for _, w := range []string{"not found", "not_found", "does not exist", "unknown", "no such", "not supported", "invalid model"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// providerAt names the provider and where it was asked, as "openai/gpt-4o at http://…".
func providerAt(s modelSpec, where string) string {
	if s.baseURL == "" {
		return s.provider
	}
	return s.provider + " at " + where
}

// listArgs are the arguments of wield models that list what s's server has.
func listArgs(s modelSpec) string {
	switch {
	case s.baseFrom == "--base-url":
		return " --base-url " + redactURL(s.baseURL)
	case s.provider != "":
		return " " + s.provider
	}
	return ""
}

// hasVersionPath reports whether a base URL has a path like /v1, /v1beta or /api/v2.
func hasVersionPath(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
			return true
		}
	}
	return false
}

// withV1 is raw with /v1 appended to its path.
func withV1(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redactURL(raw)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/v1"
	return redactURL(u.String())
}
