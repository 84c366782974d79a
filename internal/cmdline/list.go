package cmdline

import (
	"strings"

	"github.com/spf13/pflag"
)

// ListVar defines a flag called name on fs that gathers names into *p:
// it may be repeated, and each value is a name or a comma-separated list
// of names, white space around each trimmed and empty ones dropped. *p
// is nil until the flag is given, so that a command tells "not given"
// (its default) from "given, naming none" (--name "", an empty list).
func ListVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	fs.Var(list{p}, name, usage)
}

// list is the value of a ListVar flag.
type list struct{ p *[]string }

func (l list) Set(v string) error {
	if *l.p == nil {
		*l.p = []string{}
	}
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l.p = append(*l.p, part)
		}
	}
	return nil
}

func (l list) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

func (l list) Type() string { return "name" }
