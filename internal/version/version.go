// Package version says which version of wield a program was built from, read from the build
// information the Go toolchain records: the module version (v1.2.3, a pseudo-version, or
// "devel" for a build from a working tree) and, when known, the commit.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Module is wield's module path.
const Module = "github.com/wield-ai/wield"

// Info describes the build.
type Info struct {
	// Version is wield's module version: v1.2.3, a pseudo-version, or "devel" when the program
	// was built from a working tree (go build, go run) rather than a module download.
	Version string
	// Commit is the revision: from the version control information of a working-tree build, or
	// the commit named in a pseudo-version. Empty when unknown.
	Commit string
	// Time is the commit's time (RFC 3339), when the build recorded it.
	Time string
	// Modified says the working tree had uncommitted changes.
	Modified bool
	// Go is the toolchain's version, Platform the GOOS/GOARCH built for.
	Go, Platform string
}

// Get reads the running program's build information. In a program that imports wield as a
// library, Version is the version of the wield module it depends on.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "devel", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Version: "devel", Go: bi.GoVersion, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	mod := &bi.Main
	if mod.Path != Module {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == Module {
				mod = d
				if d.Replace != nil {
					mod = d.Replace
				}
				break
			}
		}
	}
	if mod != nil && mod.Version != "" && mod.Version != "(devel)" {
		info.Version = mod.Version
		info.Commit = pseudoCommit(mod.Version)
	}
	if bi.Main.Path == Module {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	return info
}

// pseudoCommit returns the commit a pseudo-version (v0.0.0-20250101120000-abcdef123456) names.
func pseudoCommit(v string) string {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 0 || len(v)-i-1 != 12 {
		return ""
	}
	rev := v[i+1:]
	for _, c := range rev {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	// The part before is a timestamp: 14 digits after a dash or a dot.
	ts := v[:i]
	j := max(strings.LastIndexByte(ts, '-'), strings.LastIndexByte(ts, '.'))
	if j < 0 || len(ts)-j-1 != 14 {
		return ""
	}
	return rev
}

// Short is the version as one word for protocol fields such as an MCP server's serverInfo:
// Version, with the short commit appended to a working-tree build ("devel+abc1234", or
// "devel+abc1234.dirty" with uncommitted changes).
func (i Info) Short() string {
	if i.Version != "devel" || i.Commit == "" {
		return i.Version
	}
	s := i.Version + "+" + shortCommit(i.Commit)
	if i.Modified {
		s += ".dirty"
	}
	return s
}

// String is the version as wield version prints it:
// "v1.2.3 (commit abc1234, 2025-06-01T10:00:00Z, go1.26.0 linux/amd64)".
func (i Info) String() string {
	var parts []string
	if i.Commit != "" {
		c := "commit " + shortCommit(i.Commit)
		if i.Modified {
			c += " with local changes"
		}
		parts = append(parts, c)
	}
	if i.Time != "" {
		parts = append(parts, i.Time)
	}
	parts = append(parts, strings.TrimSpace(i.Go+" "+i.Platform))
	return i.Version + " (" + strings.Join(parts, ", ") + ")"
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
