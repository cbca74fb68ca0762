package jsonobj

import (
	"bytes"
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// CheckDuplicates returns an error naming the first object member that data, one JSON value,
// holds twice: encoding/json keeps the last silently, so a file someone edited by hand could
// mean one thing to its reader and another to the program.
func CheckDuplicates(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		if _, err := dec.ReadToken(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
