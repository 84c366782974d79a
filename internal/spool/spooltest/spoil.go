//go:build unix

package spooltest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/internal/spool"
)

// A Target is what a Spoil spoils.
type Target int

const (
	// Folder is the spool folder itself.
	Folder Target = iota
	// Record is a record's file, such as a question's.
	Record
	// Answer is the file of a record's answer.
	Answer
)

// A Spoil makes a spool folder, or a file in it, one that wisp must not
// trust.
type Spoil struct {
	// Name says what is spoiled, such as "symlinked question".
	Name string
	// Of is what is spoiled.
	Of Target
	// Spoil spoils the folder dir, in which the file record exists and
	// the file answer does not.
	Spoil func(t *testing.T, dir, record, answer string)
	// Mend is part of the line that refuses what is spoiled: the fault
	// and how to mend it.
	Mend string
}

// Spoils returns the ways to spoil a folder of sp's kind whose record and
// answer files are of the kinds record and answer, such as "question"
// and "answer". The two that give a file or the folder to another user
// skip the test unless it runs as root.
func Spoils(sp spool.Spool, record, answer string) []Spoil {
	const (
		symlink = "is a symbolic link, which wisp never follows there"
		uid     = "belongs to uid 65534"
	)
	return []Spoil{
		{"symlinked " + record, Record, func(t *testing.T, dir, rec, ans string) {
			real := filepath.Join(t.TempDir(), "real.json")
			data, _ := os.ReadFile(rec)
			os.WriteFile(real, data, 0o600)
			os.Remove(rec)
			if err := os.Symlink(real, rec); err != nil {
				t.Fatal(err)
			}
		}, symlink},
		{"symlinked " + answer, Answer, func(t *testing.T, dir, rec, ans string) {
			if err := os.Symlink("/etc/hostname", ans); err != nil {
				t.Fatal(err)
			}
		}, symlink},
		{"world-writable " + record, Record, func(t *testing.T, dir, rec, ans string) {
			os.Chmod(rec, 0o666)
		}, "chmod 600"},
		{"group-writable " + answer, Answer, func(t *testing.T, dir, rec, ans string) {
			os.WriteFile(ans, nil, 0o600)
			os.Chmod(ans, 0o620)
		}, "chmod 600"},
		{"fifo " + record, Record, func(t *testing.T, dir, rec, ans string) {
			os.Remove(rec)
			if err := syscall.Mkfifo(rec, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"world-writable folder", Folder, func(t *testing.T, dir, rec, ans string) {
			os.Chmod(dir, 0o777)
		}, "is writable by others; run chmod 700"},
		{"symlinked folder", Folder, func(t *testing.T, dir, rec, ans string) {
			moved := filepath.Join(t.TempDir(), "moved")
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			os.Symlink(moved, dir)
		}, "is a symbolic link; wisp keeps " + sp.Keeps + " only in a real folder: remove the link (rm "},
		{"another user's " + record, Record, func(t *testing.T, dir, rec, ans string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file away")
			}
			if err := os.Lchown(rec, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, uid},
		{"another user's folder", Folder, func(t *testing.T, dir, rec, ans string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a folder away")
			}
			if err := os.Lchown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, uid},
	}
}
