// Package hf pulls MLX models from the Hugging Face Hub into wisp's home:
// a plan from one call to the Hub's API, pinned to a commit; files fetched
// with Range resumes and verified as they stream; the Hugging Face cache
// layout under $WISP_HOME/hub; the model's link under $WISP_HOME/models/mlx.
package hf

import "strings"

// A File is one file a pull fetches.
type File struct {
	// Path is the file's path in the repository, with forward slashes.
	Path string
	// Size is its size in bytes.
	Size int64
	// SHA256 is the LFS object's SHA-256, lower-case hex; empty for a
	// file kept in git.
	SHA256 string
	// BlobID is the git blob SHA-1, lower-case hex.
	BlobID string
}

// LFS reports whether the file is an LFS object, named and verified by its
// SHA-256.
func (f File) LFS() bool { return f.SHA256 != "" }

// Etag names the file's blob in the cache: its SHA-256 for an LFS file,
// its git blob SHA-1 otherwise.
func (f File) Etag() string {
	if f.LFS() {
		return f.SHA256
	}
	return f.BlobID
}

// A Plan is what a pull will fetch, pinned to one commit.
type Plan struct {
	// Repo is "organisation/name".
	Repo string
	// Commit is the 40-hex commit the files are fetched at.
	Commit string
	// Files are the files an MLX model needs: weights, configuration,
	// tokenizer, chat template.
	Files []File
	// Licence is the model card's licence (cardData.license, or its
	// license_name for a custom one); empty when the card states none.
	Licence string
	// Publisher is the repository's organisation or user.
	Publisher string
}

// Name is the model's name in wisp, the repository's name: mlx:<Name>.
func (p Plan) Name() string {
	_, name, _ := strings.Cut(p.Repo, "/")
	return name
}

// Bytes is the size of every file in the plan.
func (p Plan) Bytes() int64 {
	var n int64
	for _, f := range p.Files {
		n += f.Size
	}
	return n
}
