package inquiry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/policy/secrets"
	"github.com/wisp-agent/wisp/wisptest"
)

// Whatever the person types into a card: a secret's value goes to the
// vault, and what the model and the audit get does not depend on it; other
// text reaches the model with no credential the rules can see, within the
// answer limit, as valid UTF-8 when it was.
func FuzzCardAnswer(f *testing.F) {
	f.Add("ghp_FAKE0test1EXAMPLE2not3real4Token5w6x")
	f.Add("  hunter2-EXAMPLE  \n")
	f.Add("use AKIAFAKEKEYEXAMPLE77 please")
	f.Add(strings.Repeat("é", 1200) + "AKIAFAKEKEYEXAMPLE77")
	f.Add("staging")
	f.Add("")
	f.Fuzz(func(t *testing.T, typed string) {
		// The secret.
		var stored string
		vault := inquiry.VaultFunc(func(name, value string) (string, error) { stored = value; return "session:" + name, nil })
		rec := &wisptest.Recorder{}
		face := newCardFace(cardReply{answers: []wisp.CardAnswer{says(typed)}})
		s, err := newCardDesk(face, vault, rec).AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{secretQ}})
		if err != nil {
			t.Fatal(err)
		}
		wantLine, wantData := "1: "+inquiry.LineSecretStored("session:GH_TOKEN"), `{"outcome":"answered","provenance":"person","question":"Paste a GitHub token with repo scope.","ref":"session:GH_TOKEN","secret":"GH_TOKEN"}`
		if strings.TrimSpace(typed) == "" {
			wantLine, wantData = "1: "+inquiry.LineSecretDeclined("GH_TOKEN", wisp.FromPerson, 0), `{"outcome":"declined","provenance":"person","question":"Paste a GitHub token with repo scope.","secret":"GH_TOKEN"}`
		} else if stored != strings.TrimSpace(typed) {
			t.Errorf("the vault got %q, want %q", stored, strings.TrimSpace(typed))
		}
		if s.Line != wantLine {
			t.Errorf("secret line = %q, want %q", s.Line, wantLine)
		}
		settled := rec.Events(wisp.KindInquirySettled)
		if len(settled) != 1 {
			t.Fatalf("settled events = %+v, want one", settled)
		}
		got, err := json.Marshal(settled[0].Data.(wisp.InquirySettledData).Questions[0])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != wantData {
			t.Errorf("settled question = %s, want %s", got, wantData)
		}

		// Free text and "something else".
		for _, q := range []wisp.CardQuestion{notesQ, configQ} {
			face := newCardFace(cardReply{answers: []wisp.CardAnswer{says(typed)}})
			s, err := newCardDesk(face, nil, nil).AskCard(context.Background(), inquiry.CardRequest{Thread: "t", Turn: 1, Questions: []wisp.CardQuestion{q}})
			if err != nil {
				t.Fatal(err)
			}
			text := s.Questions[0].Text
			if m := secrets.Scan(text); len(m) > 0 {
				t.Errorf("%q reached the model with a credential (%s) in %q", typed, m[0].Rule, text)
			}
			if len(text) > inquiry.MaxAnswerBytes {
				t.Errorf("answer is %d bytes, over the limit", len(text))
			}
			if utf8.ValidString(typed) && !utf8.ValidString(s.Line) {
				t.Errorf("line %q is not valid UTF-8", s.Line)
			}
			if s.Questions[0].Provenance != wisp.FromPerson {
				t.Errorf("the person's answer %q has provenance %v", typed, s.Questions[0].Provenance)
			}
		}
	})
}
