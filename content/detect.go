package content

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// DefaultMaxFileBytes is the size limit of [ReadFile] when none is given: 20 MB, the inline
// limit of the strictest supported API (Gemini's request size, OpenAI's per-image size).
const DefaultMaxFileBytes = 20 << 20

// Detect returns the media type of data from its first bytes, without parameters
// ("image/png", "application/pdf", "text/plain"), or "application/octet-stream" when it cannot
// tell. It is the WHATWG sniffing algorithm of net/http, with text told apart from binary by
// checking for valid UTF-8.
func Detect(data []byte) string {
	mt := http.DetectContentType(data)
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	switch mt {
	case "audio/wave":
		return "audio/wav"
	case "text/xml":
		return "application/xml"
	case "application/octet-stream":
		head := data[:min(len(data), 512)]
		if len(data) > 0 && utf8.Valid(trimPartialRune(head)) && !bytes.ContainsRune(head, 0) {
			return "text/plain"
		}
	}
	return mt
}

// trimPartialRune drops a rune cut by the 512-byte window, so valid UTF-8 is not refused.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

// ReadBytes reads a file a user or a configuration names, within bounds: a regular file over
// maxBytes (0 means [DefaultMaxFileBytes]) is refused before it is read; a directory, a device
// or a socket is refused ([ErrNotRegular]); a named pipe is read to its end within maxBytes, and
// one that no process writes to reads as empty rather than waiting for a writer.
func ReadBytes(path string, maxBytes int64) ([]byte, error) {
	return readBounded(path, maxBytes, true)
}

// ReadRegularFile is [ReadBytes] for regular files only: a named pipe is refused as well
// ([ErrNotRegular]), without waiting for a writer. It suits files read before anything else can
// start, such as configuration, where a pipe is more likely a mistake than a shell's <(command).
func ReadRegularFile(path string, maxBytes int64) ([]byte, error) {
	return readBounded(path, maxBytes, false)
}

// readBounded is ReadBytes, with named pipes read when pipes is set and refused otherwise.
func readBounded(path string, maxBytes int64, pipes bool) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	// Asked before opening: opening a named pipe waits for a writer, and a device or a socket
	// may never end.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkKind(path, fi, maxBytes, pipes); err != nil {
		return nil, err
	}
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The path may have been replaced between the look and the open.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkKind(path, fi, maxBytes, pipes); err != nil {
		return nil, err
	}
	// One byte past the limit tells a file over it; a limit that leaves no room for that byte
	// (math.MaxInt64, "no limit") reads to the end.
	r := io.LimitReader(f, min(maxBytes, math.MaxInt64-1)+1)
	var data []byte
	if fi.Mode().IsRegular() {
		// Read into one buffer of the file's size, with room to see the end (or growth), rather
		// than through io.ReadAll's doublings, whose discarded buffers add up to the size again.
		data, err = readInto(make([]byte, 0, min(fi.Size(), maxBytes)+1), r)
	} else {
		data, err = io.ReadAll(r)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%w: %s is over the limit of %s", ErrTooLarge, path, FormatSize(int(maxBytes)))
	}
	return data, nil
}

// readInto reads r to its end, appending to buf.
func readInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// checkKind refuses what readBounded does not read: anything but a regular file within maxBytes,
// or a named pipe when pipes is set.
func checkKind(path string, fi fs.FileInfo, maxBytes int64, pipes bool) error {
	mode := fi.Mode()
	kind := "a special file"
	switch {
	case mode.IsRegular():
		if fi.Size() > maxBytes {
			return fmt.Errorf("%w: %s is %s; the limit is %s", ErrTooLarge, path, FormatSize(int(fi.Size())), FormatSize(int(maxBytes)))
		}
		return nil
	case mode&fs.ModeNamedPipe != 0:
		if pipes {
			return nil
		}
		kind = "a named pipe"
	case mode.IsDir():
		kind = "a directory"
	case mode&fs.ModeDevice != 0:
		kind = "a device"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("%w: %s is %s; give a regular file", ErrNotRegular, path, kind)
}

// ReadFile reads a file into a part of the kind its content shows (image, audio or document),
// refusing files over maxBytes (0 means [DefaultMaxFileBytes]) before reading them whole. The
// media type comes from the bytes; the file name's extension decides only between text types
// the bytes cannot tell apart (Markdown, CSV, HTML, JSON).
func ReadFile(path string, maxBytes int64) (Part, error) {
	data, err := ReadBytes(path, maxBytes)
	if err != nil {
		return Part{}, err
	}
	if len(data) == 0 {
		return Part{}, fmt.Errorf("%w: %s is empty", ErrEmpty, path)
	}
	mt := Detect(data)
	if mt == "text/plain" {
		if byExt := mime.TypeByExtension(strings.ToLower(filepath.Ext(path))); byExt != "" {
			if base, _, err := mime.ParseMediaType(byExt); err == nil && (strings.HasPrefix(base, "text/") || base == "application/json") {
				mt = base
			}
		}
	}
	if mt == "application/octet-stream" {
		return Part{}, fmt.Errorf("%w: cannot tell what %s holds (not an image, audio, PDF or text file)", ErrMediaType, path)
	}
	return Media(data, mt, filepath.Base(path)), nil
}
