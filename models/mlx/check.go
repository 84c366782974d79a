package mlx

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/models"
)

// Check verifies that the model named name can run. Its findings, one
// line each, come in this order: every file of the snapshot against its
// recorded digest ("12 of 12 files match their digests", or the first
// that does not; a folder of one's own has none), config.json, the
// weights against the index, the tokenizer, the chat template, and
// whether the template supports tool calls. The report is OK only when
// every finding passed, and Why is the first that failed; a template
// without tool calls passes.
//
// Check reads every byte of the model, so it can take a while; it returns
// ctx's error promptly when ctx is done. It returns an error wrapping
// [models.ErrNotFound] when there is no such model. A model that fails
// its check is no error.
//
// An MLX server takes no context length with a request, so opts change
// nothing here.
func (b *Backend) Check(ctx context.Context, name string, _ *models.RunOptions) (models.CheckReport, error) {
	if err := ctx.Err(); err != nil {
		return models.CheckReport{}, err
	}
	m, err := b.find(name)
	if err != nil {
		return models.CheckReport{}, err
	}
	seen := m.inspect()
	var found []finding
	switch {
	case m.gone:
	case m.repo == "":
		found = append(found, pass("no recorded digests (a folder of your own)"))
	default:
		f, err := verify(ctx, m.dir)
		if err != nil {
			return models.CheckReport{}, fmt.Errorf("check mlx model %q: %w", name, err)
		}
		found = append(found, f)
	}
	found = append(found, seen.findings...)

	report := models.CheckReport{OK: true, Info: seen.info}
	for _, f := range found {
		report.Findings = append(report.Findings, f.line)
		if !f.ok && report.OK {
			report.OK, report.Why = false, f.line
		}
	}
	return report, nil
}

// verify hashes every file of the snapshot dir, in name order, and
// compares the digest with the etag the file's link names. It stops at
// the first file that does not match. Its error is ctx's, when ctx is
// done while hashing.
func verify(ctx context.Context, dir string) (finding, error) {
	const mend = "pull it again"
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return fail(problem("the snapshot", err, mend)), nil
	}
	if len(files) == 0 {
		return fail("the snapshot holds no files; " + mend), nil
	}
	for _, rel := range files {
		path := filepath.Join(dir, rel)
		rel = filepath.ToSlash(rel)
		target, err := os.Readlink(path)
		if err != nil {
			return fail(rel + " has no recorded digest: it is not a link to a blob; " + mend), nil
		}
		etag := filepath.Base(target)
		kind := digestKind(etag)
		if kind == "" {
			return fail(fmt.Sprintf("%s has no recorded digest: its blob is named %q, not by a digest; %s", rel, etag, mend)), nil
		}
		got, err := hashFile(ctx, path, kind)
		switch {
		case ctx.Err() != nil:
			return finding{}, ctx.Err()
		case errors.Is(err, fs.ErrNotExist):
			return fail(rel + " is missing: its blob is gone; " + mend), nil
		case err != nil:
			return fail(problem(rel, err, mend)), nil
		case got != etag:
			return fail(fmt.Sprintf("%s does not match its digest (%s %s…); %s", rel, kind, etag[:12], mend)), nil
		}
	}
	return pass(fmt.Sprintf("%d of %d files match their digests", len(files), len(files))), nil
}

// The kinds of recorded digest.
const (
	sha256Kind = "SHA-256"   // of the contents; 64 hex digits
	gitKind    = "git SHA-1" // sha1("blob <len>\x00" + contents); 40 hex digits
	hashChunk  = 1 << 20     // how much is read between looks at ctx
)

// digestKind says which digest etag is, by its length, or "" when it is
// not a digest at all.
func digestKind(etag string) string {
	for _, c := range etag {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	switch len(etag) {
	case 64:
		return sha256Kind
	case 40:
		return gitKind
	}
	return ""
}

// hashFile returns the digest of the kind named of the file at path, in
// lower-case hex. It looks at ctx before every chunk it reads and returns
// ctx's error once ctx is done.
func hashFile(ctx context.Context, path, kind string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", errNotRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return "", err
	}
	var h hash.Hash
	switch kind {
	case sha256Kind:
		h = sha256.New()
	case gitKind:
		h = sha1.New()
		fmt.Fprintf(h, "blob %d\x00", fi.Size())
	default:
		return "", fmt.Errorf("no digest named %q", kind)
	}
	buf := make([]byte, hashChunk)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}
