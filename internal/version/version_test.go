package version_test

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/version"
)

func TestFromBuildInfo(t *testing.T) {
	const rev = "0d07b2d773e9de214da9b2204a7de7823b4e4acd"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-01T17:45:03Z"}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want version.Info
		str  string
	}{
		{"go install of a release",
			debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v0.9.0"}},
			version.Info{Version: "v0.9.0"}, "v0.9.0"},
		{"go build in a clean checkout",
			debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v0.0.0-20261201174503-0d07b2d773e9"}, Settings: vcs("false")},
			version.Info{Version: "v0.0.0-20261201174503-0d07b2d773e9", Revision: rev},
			"v0.0.0-20261201174503-0d07b2d773e9"},
		{"go build in a checkout with changes",
			debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v0.0.0-20261201174503-0d07b2d773e9+dirty"}, Settings: vcs("true")},
			version.Info{Version: "v0.0.0-20261201174503-0d07b2d773e9+dirty", Revision: rev, Modified: true},
			"v0.0.0-20261201174503-0d07b2d773e9+dirty"},
		{"a tagged commit",
			debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v0.9.0"}, Settings: vcs("false")},
			version.Info{Version: "v0.9.0", Revision: rev}, "v0.9.0 (0d07b2d773e9)"},
		{"no version, a revision",
			debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "(devel)"}, Settings: vcs("true")},
			version.Info{Revision: rev, Modified: true}, "devel (0d07b2d773e9, modified)"},
		{"nothing recorded",
			debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "(devel)"}},
			version.Info{}, "devel"},
		{"a program that uses wisp",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/bot", Version: "v1.0.0"}, Settings: vcs("false"),
				Deps: []*debug.Module{{Path: "golang.org/x/term", Version: "v0.48.0"}, {Path: version.Module, Version: "v0.9.0"}}},
			version.Info{Version: "v0.9.0"}, "v0.9.0"},
		{"a program that uses a replaced wisp",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/bot"},
				Deps: []*debug.Module{{Path: version.Module, Version: "v0.9.0", Replace: &debug.Module{Path: "example.com/wisp", Version: "v0.9.1"}}}},
			version.Info{Version: "v0.9.1"}, "v0.9.1"},
		{"a program without wisp",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/bot", Version: "v1.0.0"}},
			version.Info{}, "devel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := version.FromBuildInfo(&tc.bi)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FromBuildInfo mismatch (-want +got):\n%s", diff)
			}
			if s := got.String(); s != tc.str {
				t.Errorf("%+v.String() = %q, want %q", got, s, tc.str)
			}
		})
	}
}

// In a test binary the build recorded no version of wisp.
func TestString(t *testing.T) {
	if got := version.String(); got != version.Read().String() || got == "" {
		t.Errorf("String() = %q, want Read().String() = %q, not empty", got, version.Read().String())
	}
}
