package pending

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/policy/secrets/secretstest"
)

// folderBytes returns every file of the folder dir, one after another.
func folderBytes(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// pack joins texts with sep into as few groups as it can, each of at most
// max characters; a text longer than max is left out.
func pack(texts []string, sep string, max int) [][]string {
	var groups [][]string
	var cur []string
	n := 0
	for _, t := range texts {
		l := utf8.RuneCountInString(t)
		if l > max {
			continue
		}
		if len(cur) > 0 && n+len(sep)+l > max {
			groups, cur, n = append(groups, cur), nil, 0
		}
		if len(cur) > 0 {
			n += len(sep)
		}
		cur, n = append(cur, t), n+l
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

// A credential typed as an answer, or put by a model in a question or its
// options, is redacted before the file is written: no file in the folder
// ever holds one raw. What is filed is read back as filed, and a choice
// among redacted options is still one of them.
func TestRedactedCorpus(t *testing.T) {
	cases := secretstest.Corpus()
	var texts []string
	for _, c := range cases {
		texts = append(texts, c.Text)
	}
	s := testStore(t)
	for _, group := range pack(texts, " or ", maxQuestionChars) {
		q := free
		q.Text = strings.Join(group, " or ")
		mustFile(t, s, q)
	}
	for _, group := range pack(texts, "", maxOptionChars*maxOptions) {
		var opts []string
		for _, o := range group {
			if utf8.RuneCountInString(o) <= maxOptionChars && len(opts) < maxOptions {
				opts = append(opts, o)
			}
		}
		if len(opts) < minOptions {
			continue
		}
		q := choice
		q.Options = opts
		fq := mustFile(t, s, q)
		if err := s.Answer(t.Context(), Answer{ID: fq.ID, Digest: fq.Digest, Outcome: wisp.OutcomeChose, Text: fq.Options[0], From: FromChat}); err != nil {
			t.Fatalf("choosing the redacted option %q = %v", fq.Options[0], err)
		}
	}
	// Typed text holds no control character (wisp.CheckTyped): a line
	// break within a case is typed as a space.
	var lines []string
	for _, text := range texts {
		lines = append(lines, strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, text))
	}
	for _, group := range pack(lines, " ", MaxAnswerBytes/2) {
		fq := mustFile(t, s, free)
		if err := s.Answer(t.Context(), Answer{ID: fq.ID, Digest: fq.Digest, Outcome: wisp.OutcomeAnswered, Text: strings.Join(group, " "), From: FromTerminal}); err != nil {
			t.Fatalf("Answer = %v", err)
		}
		if a, ok, err := s.Answered(fq.ID); err != nil || !ok || !strings.Contains(a.Text, "[REDACTED:") {
			t.Errorf("Answered = %q, %v, %v; want the answer with markers", a.Text, ok, err)
		}
	}
	if leaks := secretstest.Leaks(folderBytes(t, s.Dir), cases); leaks != nil {
		t.Errorf("the pending folder holds %d cases of the corpus: %v", len(leaks), leaks)
	}
}

// A marker longer than what it replaces never makes a filed text too long
// to read back: it is cut to fit.
func TestRedactedToFit(t *testing.T) {
	s := testStore(t)
	q := free
	q.Text = strings.Repeat("password=hunter2x ", 17)[:maxQuestionChars]
	fq := mustFile(t, s, q)
	if n := utf8.RuneCountInString(fq.Text); n != maxQuestionChars || strings.Contains(fq.Text, "hunter2x") {
		t.Errorf("File = %d characters %q, want %d with markers only", n, fq.Text, maxQuestionChars)
	}
	text := strings.Repeat("password: hunter2x ", MaxAnswerBytes/19)
	if err := s.Answer(t.Context(), Answer{ID: fq.ID, Digest: fq.Digest, Outcome: wisp.OutcomeAnswered, Text: text, From: FromTerminal}); err != nil {
		t.Fatalf("Answer = %v", err)
	}
	if a, ok, err := s.Answered(fq.ID); err != nil || !ok || len(a.Text) > MaxAnswerBytes || strings.Contains(a.Text, "hunter2x") {
		t.Errorf("Answered = %d bytes, %v, %v; want at most %d, markers only", len(a.Text), ok, err, MaxAnswerBytes)
	}
}
