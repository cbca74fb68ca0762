package budget

import (
	"bytes"
	"image"
	_ "image/gif"  // sizes of GIF images
	_ "image/jpeg" // sizes of JPEG images
	_ "image/png"  // sizes of PNG images
)

// imageSize reads an image's pixel size from its header, without decoding it.
func imageSize(data []byte) (w, h int, ok bool) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

var (
	pageSpaced = []byte("/Type /Page")
	pageTight  = []byte("/Type/Page")
)

// pdfPages counts the page objects of a PDF ("/Type /Page" but not "/Type /Pages"); compressed
// object streams hide them, in which case it returns 0 and the caller estimates by size.
func pdfPages(data []byte) int {
	return countPages(data, pageSpaced) + countPages(data, pageTight)
}

func countPages(data, marker []byte) int {
	n := 0
	for {
		i := bytes.Index(data, marker)
		if i < 0 {
			return n
		}
		data = data[i+len(marker):]
		if len(data) == 0 || data[0] != 's' {
			n++
		}
	}
}
