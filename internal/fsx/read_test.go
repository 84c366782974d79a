//go:build unix

package fsx_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wisp-agent/wisp/internal/fsx"
)

func TestReadFile(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		want    string
		wantErr error
		wantMsg string // with PATH for the path
	}{
		{
			name:  "regular file",
			setup: func(t *testing.T, p string) { mustWrite(t, p, "0123456789") },
			want:  "0123456789",
		},
		{
			name:    "missing",
			setup:   func(t *testing.T, p string) {},
			wantErr: os.ErrNotExist,
		},
		{
			name: "symbolic link",
			setup: func(t *testing.T, p string) {
				mustWrite(t, p+".real", "x")
				if err := os.Symlink(p+".real", p); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: fsx.ErrNotRegular,
			wantMsg: "PATH is a symbolic link, not a regular file",
		},
		{
			name: "folder",
			setup: func(t *testing.T, p string) {
				if err := os.Mkdir(p, 0o700); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: fsx.ErrNotRegular,
			wantMsg: "PATH is a folder, not a regular file",
		},
		{
			name: "named pipe",
			setup: func(t *testing.T, p string) {
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Skip("no named pipes here:", err)
				}
			},
			wantErr: fsx.ErrNotRegular,
			wantMsg: "PATH is not a regular file",
		},
		{
			name:    "one byte over the limit",
			setup:   func(t *testing.T, p string) { mustWrite(t, p, "0123456789x") },
			wantErr: fsx.ErrTooLarge,
			wantMsg: "PATH is larger than 10 bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			tt.setup(t, path)
			got, err := fsx.ReadFile(path, 10)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("ReadFile = %v, want nil", err)
				}
				if diff := cmp.Diff(tt.want, string(got)); diff != "" {
					t.Errorf("ReadFile (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ReadFile = %v, want %v", err, tt.wantErr)
			}
			if tt.wantMsg != "" {
				want := replacePath(tt.wantMsg, path)
				if diff := cmp.Diff(want, err.Error()); diff != "" {
					t.Errorf("ReadFile error (-want +got):\n%s", diff)
				}
			}
		})
	}
}
