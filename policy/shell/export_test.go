package shell

// Names returns the names of the programs the table has rows for.
func Names() []string {
	var out []string
	for name := range index(rows).rows {
		out = append(out, name)
	}
	return out
}

// Rows returns the number of rows of the table.
func Rows() int { return len(rows) }

// Orphans returns the programs whose rows do not start with the
// program's own.
func Orphans() []string {
	var out []string
	for name, rs := range index(rows).rows {
		if rs[0].name != name || len(rs) > 1 && !rs[0].sub {
			out = append(out, name)
		}
	}
	return out
}

// Known reports whether the table has rows for a program of that name.
func Known(name string) bool {
	_, ok := index(rows).rows[alias(name)]
	return ok
}
