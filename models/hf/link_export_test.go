package hf

// LinkWithHook is Link with hook called just before each rename into
// place, so a test can change the path between the check and the rename.
func (s Store) LinkWithHook(p Plan, replace bool, hook func()) (string, error) {
	return s.link(p, replace, hook)
}
