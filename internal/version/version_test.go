package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name   string
		bi     debug.BuildInfo
		want   Info
		short  string
		string string
	}{
		{
			name: "release",
			bi:   debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: Module, Version: "v1.2.3"}},
			want: Info{Version: "v1.2.3", Go: "go1.26.0"}, short: "v1.2.3", string: "v1.2.3 (go1.26.0 ",
		},
		{
			name:  "pseudo-version",
			bi:    debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: Module, Version: "v0.0.0-20250601100000-abcdef123456"}},
			want:  Info{Version: "v0.0.0-20250601100000-abcdef123456", Commit: "abcdef123456", Go: "go1.26.0"},
			short: "v0.0.0-20250601100000-abcdef123456", string: "v0.0.0-20250601100000-abcdef123456 (commit abcdef123456, go1.26.0 ",
		},
		{
			name: "pre-release pseudo-version",
			bi:   debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.3.0-rc.1.0.20250601100000-abcdef123456"}},
			want: Info{Version: "v1.3.0-rc.1.0.20250601100000-abcdef123456", Commit: "abcdef123456"},
		},
		{
			name: "working tree",
			bi: debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: Module, Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.time", Value: "2025-06-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			want:   Info{Version: "devel", Commit: "0123456789abcdef0123456789abcdef01234567", Time: "2025-06-01T10:00:00Z", Modified: true, Go: "go1.26.0"},
			short:  "devel+0123456789ab.dirty",
			string: "devel (commit 0123456789ab with local changes, 2025-06-01T10:00:00Z, go1.26.0 ",
		},
		{
			name: "working tree without vcs",
			bi:   debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}},
			want: Info{Version: "devel"}, short: "devel",
		},
		{
			name: "library dependency",
			bi: debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "ffff"}},
				Deps: []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.1.0"}, {Path: Module, Version: "v0.4.0"}}},
			want: Info{Version: "v0.4.0"}, short: "v0.4.0",
		},
		{
			name: "replaced dependency",
			bi: debug.BuildInfo{Main: debug.Module{Path: "example.com/app"},
				Deps: []*debug.Module{{Path: Module, Version: "v0.4.0", Replace: &debug.Module{Path: "../wield"}}}},
			want: Info{Version: "devel"}, short: "devel",
		},
		{
			name: "not a pseudo-version",
			bi:   debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.0.0-beta-abcdef123456"}},
			want: Info{Version: "v1.0.0-beta-abcdef123456"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromBuildInfo(&tt.bi)
			str := got.String()
			if got.Platform == "" {
				t.Error("no platform")
			}
			got.Platform = ""
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			if tt.short != "" && got.Short() != tt.short {
				t.Errorf("Short %q, want %q", got.Short(), tt.short)
			}
			if tt.string != "" && !strings.HasPrefix(str, tt.string) {
				t.Errorf("String %q, want prefix %q", str, tt.string)
			}
		})
	}
}

func TestGet(t *testing.T) {
	// A test binary's main module is wield, built from the working tree.
	if got := Get(); got.Version != "devel" || got.Go == "" || got.Platform == "" {
		t.Fatalf("Get() = %+v", got)
	}
}
