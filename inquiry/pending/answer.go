package pending

import (
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/internal/spool"
)

// The faces an answer can come from, as Answer.From names them.
const (
	// FromTerminal: wisp questions answer or decline at a terminal.
	FromTerminal = "terminal"
	// FromElicitation: the MCP client's dialog.
	FromElicitation = "elicitation"
	// FromChat: /questions answer or decline in a plain wisp chat.
	FromChat = "chat"
	// FromTUI: a running wisp-tui, through the questions line of wisp
	// chat --json.
	FromTUI = "tui"
)

// An Answer is the person's answer to a parked question, as filed in
// the pending folder.
type Answer struct {
	// ID names the question answered.
	ID string
	// Digest is the Digest of the question the person was shown. Answer
	// refuses it when it is not the question's current Digest.
	Digest string
	// Outcome is one of wisp.OutcomeAnswered, OutcomeChose,
	// OutcomeChoseNone and OutcomeDeclined.
	Outcome wisp.Outcome
	// Text is the typed text (OutcomeAnswered, 1 to MaxAnswerBytes bytes
	// of UTF-8) or the chosen option, verbatim (OutcomeChose); empty for
	// the others. The desk scans and cuts it when the thread takes it.
	Text string
	// From names the face the person answered in: FromTerminal,
	// FromElicitation, FromChat or FromTUI.
	From string
	// At is when the person answered; Store.Answer sets it when it is
	// zero. It is kept in UTC.
	At time.Time
}

// answerFile is the JSON form of an Answer: <id>.answer.json.
type answerFile struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Digest  string    `json:"digest"`
	Outcome string    `json:"outcome"`
	Text    string    `json:"text,omitempty"`
	From    string    `json:"from"`
	At      time.Time `json:"at"`
}

// answerOutcomes are the outcomes an answer may carry.
var answerOutcomes = [...]wisp.Outcome{wisp.OutcomeAnswered, wisp.OutcomeChose, wisp.OutcomeChoseNone, wisp.OutcomeDeclined}

// answerFaces are the faces an answer may come from.
var answerFaces = [...]string{FromTerminal, FromElicitation, FromChat, FromTUI}

// checkAnswer applies the rules an answer obeys on its own.
func checkAnswer(a Answer) error {
	if !slices.Contains(answerOutcomes[:], a.Outcome) {
		return fmt.Errorf("outcome %s is not one a person gives; use answered, chose, chose-none or declined", a.Outcome)
	}
	if !slices.Contains(answerFaces[:], a.From) {
		return fmt.Errorf("from %q names no face; use terminal, elicitation, chat or tui", a.From)
	}
	switch a.Outcome {
	case wisp.OutcomeAnswered, wisp.OutcomeChose:
		if a.Text == "" {
			return fmt.Errorf("a %s answer needs its text", a.Outcome)
		}
	default:
		if a.Text != "" {
			return fmt.Errorf("a %s answer carries no text", a.Outcome)
		}
	}
	if !utf8.ValidString(a.Text) {
		return errors.New("the answer is not valid UTF-8")
	}
	if len(a.Text) > MaxAnswerBytes {
		return fmt.Errorf("the answer is %d bytes; at most %d are filed", len(a.Text), MaxAnswerBytes)
	}
	if a.At.IsZero() || !spool.InRange(a.At) {
		return errors.New("no time answered, or one before year 1 or after 9999")
	}
	return nil
}

// fits checks that a suits q by the rule every face's answer obeys
// (wisp.Question.Fit): a choice is one of its options, spelt as the
// question spells it; typed text answers only free text, and never holds
// a control character; a free-text question takes no choice.
func fits(a Answer, q Question) error {
	if a.Outcome == wisp.OutcomeChose && !slices.Contains(q.Options, a.Text) {
		return errors.New("the answer is not one of the question's options")
	}
	if _, err := (wisp.Question{Options: q.Options}).Fit(wisp.Answer{Outcome: a.Outcome, Text: a.Text, Provenance: wisp.FromPerson}); err != nil {
		return err
	}
	return nil
}

// encodeAnswer writes a's file.
func encodeAnswer(a Answer) ([]byte, error) {
	return spool.EncodeJSON(answerFile{
		Version: formatVersion,
		ID:      a.ID,
		Digest:  a.Digest,
		Outcome: a.Outcome.String(),
		Text:    a.Text,
		From:    a.From,
		At:      a.At,
	})
}

// parseAnswer reads an answer file, refusing what encodeAnswer could not
// have written for a valid answer.
func parseAnswer(data []byte) (Answer, error) {
	var f answerFile
	if err := spool.DecodeJSON(data, &f); err != nil {
		return Answer{}, err
	}
	if err := spool.CheckVersion(f.Version, formatVersion); err != nil {
		return Answer{}, err
	}
	if !ValidID(f.ID) {
		return Answer{}, errors.New("bad question ID")
	}
	a := Answer{ID: f.ID, Digest: f.Digest, Text: f.Text, From: f.From, At: f.At.UTC()}
	i := slices.IndexFunc(answerOutcomes[:], func(o wisp.Outcome) bool { return o.String() == f.Outcome })
	if i < 0 {
		return Answer{}, fmt.Errorf("unknown outcome %q", f.Outcome)
	}
	a.Outcome = answerOutcomes[i]
	if err := checkAnswer(a); err != nil {
		return Answer{}, err
	}
	return a, nil
}

// parseWithdrawn reads a withdrawal file.
func parseWithdrawn(data []byte) (spool.Withdrawal, error) {
	return spool.ParseWithdrawal(data, formatVersion, "question ID")
}
