package main

import (
	"fmt"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/orderedjson"
)

// The bound of the files the command reads from a path a user or a configuration names
// (configuration and MCP server files): far above any real file, it keeps a hostile or mistaken
// one (/dev/zero) from taking the machine's memory. orderedjson.ConfigBounds bound what is inside.
const maxConfigFileBytes = 1 << 20 // a whole file

// readJSONFile reads a JSON configuration file at path, a regular file only (a device, a named
// pipe or a directory is refused at once, without waiting), and holds it to
// [orderedjson.ConfigBounds], duplicate keys included.
func readJSONFile(path string) ([]byte, error) {
	data, err := content.ReadRegularFile(path, maxConfigFileBytes)
	if err != nil {
		return nil, err
	}
	if err := orderedjson.Check(data, orderedjson.ConfigBounds); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}
