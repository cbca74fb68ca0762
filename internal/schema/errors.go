package schema

import (
	"strconv"
	"strings"
)

// ArgumentError reports JSON that cannot be used: text that is not JSON, or JSON that does not
// match a schema or cannot be held by the Go type it is read into. Its message is written for
// a model, which is expected to correct its call. The tool package exports it as
// tool.ArgumentError.
type ArgumentError struct {
	// Syntax is set when the text is not JSON; Offset is then the byte offset of the problem
	// and Issues has one entry describing it.
	Syntax bool
	Offset int
	// Issues lists what is wrong, each at the JSON Pointer of the offending value.
	Issues []Issue
}

// Issue is one problem with a JSON value.
type Issue struct {
	// Path is the JSON Pointer (RFC 6901) of the value, "" for the top-level value itself.
	Path string
	// Message says what is wrong and what was expected. It may quote the value.
	Message string
	// Keyword names the rule the value breaks without quoting it: the JSON Schema keyword
	// ("type", "enum", "required", "additionalProperties", …), "syntax" for text that is not
	// JSON, "duplicate" for a repeated property, "decode" for a value the Go type cannot hold,
	// "limit" for arguments too large or complex to check. Empty when unknown.
	Keyword string
}

// Error lists the issues, or the syntax problem and its offset.
func (e *ArgumentError) Error() string {
	return e.render(false)
}

// Redacted is Error without any value from the arguments: each issue's path and keyword only,
// for telemetry that must not record what a model sent. Object keys in paths are kept.
func (e *ArgumentError) Redacted() string {
	return e.render(true)
}

func (e *ArgumentError) render(redact bool) string {
	var b strings.Builder
	if e.Syntax {
		b.WriteString("arguments are not valid JSON")
		if !redact {
			b.WriteString(": ")
			if len(e.Issues) > 0 {
				b.WriteString(e.Issues[0].Message)
			}
		}
		b.WriteString(" at offset ")
		b.WriteString(strconv.Itoa(e.Offset))
		return b.String()
	}
	b.WriteString("invalid arguments: ")
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteString("; ")
		}
		if is.Path == "" {
			b.WriteString("/")
		} else {
			b.WriteString(is.Path)
		}
		b.WriteString(": ")
		switch {
		case !redact:
			b.WriteString(is.Message)
		case is.Keyword != "":
			b.WriteString(is.Keyword)
		default:
			b.WriteString("invalid")
		}
	}
	return b.String()
}

// maxIssues bounds how many problems one error lists; a model fixes a few at a time anyway.
const maxIssues = 10
