package hf

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// modelInfo is what a plan reads of the Hub's answer to
// /api/models/{org}/{name}/revision/{rev}?blobs=true. The Hub sends more
// (tags, config, safetensors, …); it is skipped.
type modelInfo struct {
	ID       string    `json:"id"`
	Author   string    `json:"author"`
	Sha      string    `json:"sha"`
	Gated    gate      `json:"gated"`
	Disabled bool      `json:"disabled"`
	CardData cardData  `json:"cardData"`
	Siblings []sibling `json:"siblings"`
}

// cardData is what a plan reads of the model card's front matter.
type cardData struct {
	License     names  `json:"license"`
	LicenseName string `json:"license_name"`
}

// sibling is one file of the listing.
type sibling struct {
	RFilename string   `json:"rfilename"`
	Size      *int64   `json:"size"`
	BlobID    string   `json:"blobId"`
	LFS       *lfsInfo `json:"lfs"`
}

// lfsInfo is an LFS file's object: its SHA-256 and size.
type lfsInfo struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// gate is the listing's "gated": "" for false, otherwise "auto", "manual"
// or "true".
type gate string

// UnmarshalJSON reads false, true, null or a string.
func (g *gate) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case bool:
		*g = ""
		if v {
			*g = "true"
		}
	case string:
		*g = gate(v)
		if v == "false" {
			*g = ""
		}
	case nil:
		*g = ""
	default:
		return fmt.Errorf("gated is %s, not false or a string", b)
	}
	return nil
}

// names is a card's license: one name, or a list of them. Anything else
// reads as no licence: a card is free text its author wrote, and an odd
// licence field is no reason to refuse a model.
type names []string

// UnmarshalJSON reads a string or a list of strings.
func (n *names) UnmarshalJSON(b []byte) error {
	*n = nil
	if string(b) == "null" {
		return nil
	}
	var one string
	if json.Unmarshal(b, &one) == nil {
		*n = names{one}
		return nil
	}
	var list []string
	if json.Unmarshal(b, &list) == nil {
		*n = list
	}
	return nil
}

// decodeListing reads the Hub's answer for repo.
func (c *Client) decodeListing(repo string, body []byte) (modelInfo, error) {
	var info modelInfo
	if err := json.Unmarshal(body, &info); err != nil {
		return modelInfo{}, refuse(ErrBadListing, "%s answered the listing of %s with something other than its JSON (%s); %s",
			c.hub, repo, clean(err.Error(), 120), c.mend)
	}
	return info, nil
}

// plan makes the plan of the listing info, which the Hub gave for repo, or
// refuses it.
func (c *Client) plan(repo string, info modelInfo) (Plan, error) {
	if info.ID != "" {
		if badRepo(info.ID) != "" {
			return Plan{}, c.malformed(repo, "its id %s is not a repository name", quote(info.ID))
		}
		repo = info.ID // the Hub's spelling of the name
	}
	if !isHex(info.Sha, 40) {
		return Plan{}, c.malformed(repo, "its commit %s is not 40 lower-case hex digits", quote(info.Sha))
	}
	if info.Disabled {
		return Plan{}, refuse(ErrNotFound, "%s is disabled on %s; pick another model", repo, c.hub)
	}
	if info.Gated != "" && !c.token {
		return Plan{}, c.gated(repo)
	}

	seen := make(map[string]bool, len(info.Siblings))
	for _, s := range info.Siblings {
		if why := unsafePath(s.RFilename); why != "" {
			return Plan{}, c.unsafe(repo, s.RFilename, why)
		}
		if seen[s.RFilename] {
			return Plan{}, c.unsafe(repo, s.RFilename, "listed twice")
		}
		seen[s.RFilename] = true
	}
	for _, s := range info.Siblings {
		if err := c.checkSibling(repo, s); err != nil {
			return Plan{}, err
		}
	}

	p := Plan{Repo: repo, Commit: info.Sha, Licence: licence(info.CardData), Publisher: publisher(repo, info.Author)}
	folded := map[string]string{}
	var config, weights bool
	for _, s := range info.Siblings {
		if !wanted(s.RFilename) {
			continue
		}
		key := strings.ToLower(norm.NFC.String(s.RFilename))
		if other, ok := folded[key]; ok {
			return Plan{}, c.unsafe(repo, s.RFilename, "it differs from "+quote(other)+" only in case or in Unicode form")
		}
		folded[key] = s.RFilename
		f := File{Path: s.RFilename, Size: *s.Size, BlobID: s.BlobID}
		if s.LFS != nil {
			f.SHA256 = s.LFS.SHA256
		}
		p.Files = append(p.Files, f)
		config = config || f.Path == "config.json"
		weights = weights || !strings.Contains(f.Path, "/") && strings.HasSuffix(f.Path, ".safetensors")
	}
	if !config || !weights {
		return Plan{}, refuse(ErrNotMLX, "%s has no MLX weights (model*.safetensors with config.json); pick an MLX model, such as one from mlx-community", repo)
	}
	slices.SortFunc(p.Files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	return p, nil
}

// checkSibling refuses a file of the listing whose size or digests are
// not ones.
func (c *Client) checkSibling(repo string, s sibling) error {
	name := quote(s.RFilename)
	switch {
	case s.Size == nil:
		return c.malformed(repo, "%s has no size", name)
	case *s.Size < 0:
		return c.malformed(repo, "%s has size %d", name, *s.Size)
	case !isHex(s.BlobID, 40):
		return c.malformed(repo, "%s has blobId %s, not 40 lower-case hex digits", name, quote(s.BlobID))
	case s.LFS == nil:
		return nil
	case !isHex(s.LFS.SHA256, 64):
		return c.malformed(repo, "%s has lfs.sha256 %s, not 64 lower-case hex digits", name, quote(s.LFS.SHA256))
	case s.LFS.Size != *s.Size:
		return c.malformed(repo, "%s has lfs.size %d but size %d", name, s.LFS.Size, *s.Size)
	}
	return nil
}

// malformed refuses the listing of repo for the reason format makes of
// args.
func (c *Client) malformed(repo, format string, args ...any) error {
	return refuse(ErrBadListing, "the listing of %s from %s is malformed: %s; %s", repo, c.hub, fmt.Sprintf(format, args...), c.mend)
}

// unsafe refuses repo for listing a file at path, which is unsafe for the
// reason why.
func (c *Client) unsafe(repo, path, why string) error {
	return refuse(ErrUnsafePath, "%s lists a file at an unsafe path, %s (%s), so none of it is pulled; pick another model", repo, quote(path), why)
}

// wanted reports whether a file at path is one an MLX model needs, by the
// patterns mlx_lm.load downloads, whose * matches any run of characters,
// "/" among them: *.json, model*.safetensors, tokenizer.model,
// *.tiktoken, tiktoken.model, *.txt, *.jsonl and *.jinja. Its *.py is left
// out: code is never needed to run an MLX model, and a pull fetches none.
// So are README.md, LICENSE, .gitattributes and weights in other formats.
func wanted(path string) bool {
	switch {
	case path == "tokenizer.model", path == "tiktoken.model":
		return true
	case strings.HasPrefix(path, "model") && strings.HasSuffix(path, ".safetensors"):
		return true
	}
	for _, ext := range [...]string{".json", ".tiktoken", ".txt", ".jsonl", ".jinja"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// unsafePath says why a file's path in a repository is not safe to write
// under a snapshot folder, or returns "" when it is: it must be relative,
// with forward slashes, and have no empty, "." or ".." element and no
// control character.
func unsafePath(p string) string {
	switch {
	case p == "":
		return "empty"
	case !utf8.ValidString(p):
		return "not UTF-8"
	case strings.HasPrefix(p, "/"):
		return "absolute"
	case strings.Contains(p, `\`):
		return "a backslash"
	case strings.ContainsFunc(p, unicode.IsControl):
		return "a NUL or control character"
	}
	for e := range strings.SplitSeq(p, "/") {
		switch e {
		case "..":
			return "a .. element"
		case "", ".":
			return "an empty or . element"
		}
	}
	return ""
}

// badRepo says why repo is not a repository name, ORGANISATION/NAME, or
// returns "" when it is. Each part is what the Hub accepts: letters,
// digits, "-", "_" and ".", at most 96 of them, neither starting nor
// ending with "-" or ".", with no ".." or "--".
func badRepo(repo string) string {
	org, name, ok := strings.Cut(repo, "/")
	switch {
	case !ok:
		return "it has no /"
	case strings.Contains(name, "/"):
		return "it has more than one /"
	}
	for _, part := range [...]string{org, name} {
		if why := badPart(part); why != "" {
			return why
		}
	}
	return ""
}

// badPart says why part is not an organisation's or a repository's name,
// or returns "".
func badPart(part string) string {
	switch {
	case part == "":
		return "a part is empty"
	case len(part) > 96:
		return "a part is longer than 96 characters"
	case strings.IndexFunc(part, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.')
	}) >= 0:
		return "it has a character other than letters, digits, -, _ and ."
	case strings.ContainsAny(part[:1], "-.") || strings.ContainsAny(part[len(part)-1:], "-."):
		return "a part starts or ends with - or ."
	case strings.Contains(part, "..") || strings.Contains(part, "--"):
		return "it has .. or --"
	}
	return ""
}

// licence is the card's licence: its license, with license_name in place
// of "other", several joined with ", "; "" when the card states none.
func licence(card cardData) string {
	var out []string
	for _, n := range card.License {
		if n == "other" && card.LicenseName != "" {
			n = card.LicenseName
		}
		if n = clean(n, 100); n != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 && card.LicenseName != "" {
		out = append(out, clean(card.LicenseName, 100))
	}
	return strings.Join(out, ", ")
}

// publisher is the listing's author, when it is a name the Hub could
// give, or else the organisation part of repo.
func publisher(repo, author string) string {
	if author != "" && badPart(author) == "" {
		return author
	}
	org, _, _ := strings.Cut(repo, "/")
	return org
}

// isHex reports whether s is n lower-case hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// quote quotes s for an error line, cut to 80 bytes first.
func quote(s string) string {
	if len(s) > 80 {
		s = strings.ToValidUTF8(s[:80], "") + "…"
	}
	return strconv.Quote(s)
}
