package askuser_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/tools/askuser"
)

// Whatever the model sends, the tool neither panics nor ends the turn: it
// either refuses with a line that starts "error: ", or settles every
// question of the card with one line each.
func FuzzArguments(f *testing.F) {
	f.Add(`{"questions":[{"question":"Which environment?","header":"Env","options":[{"label":"staging","description":"safe","recommended":true},{"label":"production"}]}]}`)
	f.Add(`{"questions":[{"question":"Which regions?","multiSelect":true,"allowOther":true,"options":[{"label":"eu"},{"label":"us"}]},{"question":"Anything else?"}],"timeout_seconds":30}`)
	f.Add(`{"secret":{"name":"GH_TOKEN","question":"Paste a GitHub token."}}`)
	f.Add(`{"questions":[{"question":"A?"}],"secret":{"name":"GH_TOKEN","question":"Q"}}`)
	f.Add(`{"questions":[{"question":"What is your password?"}]}`)
	f.Add(`{"timeout_seconds":1e400}`)
	f.Add(`{"questions":[{"question":"A\u2028B?","options":[{"label":"a"},{"label":"A"}]}]}`)
	f.Add(`{"secret":{"name":"","question":""}}`)
	f.Add(`[]`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, args string) {
		r, decodeErr := askuser.Decode(json.RawMessage(args))
		plain := wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
			return wisp.Answer{Outcome: wisp.OutcomeNoPerson, Provenance: wisp.FromUnattended}, nil
		})
		vault := inquiry.VaultFunc(func(name, value string) (string, error) { return "session:" + name, nil })
		tool := askuser.New(inquiry.NewDesk(plain, &inquiry.Options{Vault: vault}))
		res, err := tool.Call(context.Background(), wisp.Call{Name: askuser.Name, Thread: "t", Turn: 1, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("Call(%q) ended the turn: %v", args, err)
		}
		if res.IsError {
			if !strings.HasPrefix(res.Content, "error: ") {
				t.Errorf("Call(%q) = %q, an error that does not start with \"error: \"", args, res.Content)
			}
			return
		}
		if decodeErr != nil {
			t.Fatalf("Call(%q) settled arguments that Decode refused: %v", args, decodeErr)
		}
		if got, want := strings.Count(res.Content, "\n")+1, len(r.Questions); got != want {
			t.Errorf("Call(%q) = %q: %d lines for %d questions", args, res.Content, got, want)
		}
		for _, fact := range res.Facts {
			if fact.Subject == "answer" || fact.Source == wisp.SourcePerson {
				t.Errorf("Call(%q) with no person made the fact %v", args, fact)
			}
		}
	})
}
