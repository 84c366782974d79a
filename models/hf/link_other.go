//go:build !linux && !darwin

package hf

// renameNoReplace renames oldpath to newpath unless newpath exists. The
// check and the rename are two steps here, so a thing that appears
// between them may be replaced if it is a file.
func renameNoReplace(oldpath, newpath string) error {
	return renameNoReplaceChecked(oldpath, newpath)
}

// renameExchange cannot swap two names atomically here.
func renameExchange(oldpath, newpath string) error { return errNoExchange }
