package cmdline_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/wisp-agent/wisp/internal/cmdline"
)

func TestListVar(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{nil, nil},
		{[]string{"--tool", "ask"}, []string{"ask"}},
		{[]string{"--tool", "ask", "--tool", "memory"}, []string{"ask", "memory"}},
		{[]string{"--tool", "ask, memory,,", "--tool=read_file"}, []string{"ask", "memory", "read_file"}},
		{[]string{"--tool", ""}, []string{}},
		{[]string{"--tool", " , "}, []string{}},
	}
	for _, tc := range tests {
		fs := pflag.NewFlagSet("tool", pflag.ContinueOnError)
		var got []string
		cmdline.ListVar(fs, &got, "tool", "a tool")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("Parse(%q) = %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ListVar after %q = %#v, want %#v (-want +got):\n%s", tc.args, got, tc.want, diff)
		}
	}
}
