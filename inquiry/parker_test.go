package inquiry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/wisptest"
)

// parker is a face whose questions can wait beyond the turn.
type parker struct {
	answer  wisp.Answer
	waiting bool
	err     error
	settled []string
}

func (p *parker) Ask(context.Context, wisp.Question) (wisp.Answer, error) { return p.answer, nil }
func (p *parker) Waiting(context.Context, string) (bool, error)           { return p.waiting, p.err }
func (p *parker) Settled(_ context.Context, q wisp.Question)              { p.settled = append(p.settled, q.ID) }

func TestParker(t *testing.T) {
	ask := inquiry.Request{Thread: "t1", Turn: 3, Text: "Which config?", Options: []string{"a", "b"}}
	tests := []struct {
		name        string
		face        *parker
		wantLine    string
		wantKinds   []string
		wantSettled []string
	}{
		{"parked", &parker{answer: wisp.Answer{Outcome: wisp.OutcomeParked}},
			inquiry.LineParked("Which config?", "q1"), []string{"inquiry.requested", "inquiry.parked"}, nil},
		{"answered in the turn", &parker{answer: wisp.Answer{Outcome: wisp.OutcomeChose, Text: "b", Provenance: wisp.FromPerson}},
			"chose: b", []string{"inquiry.requested", "inquiry.settled"}, []string{"q1"}},
		{"one already waits", &parker{waiting: true},
			inquiry.ErrLineWaiting, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			s, err := newDesk(tc.face, 0, rec).Ask(t.Context(), ask)
			if err != nil {
				t.Fatal(err)
			}
			if s.Line != tc.wantLine {
				t.Errorf("line %q, want %q", s.Line, tc.wantLine)
			}
			if diff := cmp.Diff(tc.wantKinds, rec.Kinds(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSettled, tc.face.settled); diff != "" {
				t.Errorf("Settled calls (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("broken folder", func(t *testing.T) {
		_, err := newDesk(&parker{err: errors.New("pending folder is a symbolic link")}, 0, nil).Ask(t.Context(), ask)
		if err == nil {
			t.Fatal("a face that cannot tell what waits let the question through")
		}
	})
	t.Run("not a parker", func(t *testing.T) {
		s, err := newDesk(wisp.InquirerFunc(func(context.Context, wisp.Question) (wisp.Answer, error) {
			return wisp.Answer{Outcome: wisp.OutcomeParked}, nil
		}), 0, nil).Ask(t.Context(), ask)
		if err != nil || s.Line != inquiry.LineNoPerson {
			t.Errorf("a parked answer from a face that cannot deliver it later = %q, %v; want %q", s.Line, err, inquiry.LineNoPerson)
		}
	})
}

func TestResume(t *testing.T) {
	choice := wisp.Question{ID: "a1b2c3d4", Thread: "t1", Turn: 1, Text: "Which config?", Options: []string{"~/.wisp/config.json", "./wisp.json"}}
	free := wisp.Question{ID: "a1b2c3d4", Thread: "t1", Turn: 1, Text: "Which config?"}
	tests := []struct {
		name     string
		free     bool
		answer   wisp.Answer
		wantLine string
		wantFact string
		wantErr  string // the inquiry.settled record's error
	}{
		{"chose", false, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json", Provenance: wisp.FromPerson},
			`[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: chose: ./wisp.json]`, "./wisp.json", ""},
		{"typed an option", false, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: " ./WISP.json ", Provenance: wisp.FromPerson},
			`[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: chose: ./wisp.json]`, "./wisp.json", ""},
		{"declined", false, wisp.Answer{Outcome: wisp.OutcomeDeclined, Provenance: wisp.FromPerson},
			`[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: ` + inquiry.LineDeclined + `]`, inquiry.FactDeclined, ""},
		{"credential", true, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "AKIAIOSFODNN7EXAMPLE", Provenance: wisp.FromPerson},
			`[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: answer: [REDACTED:aws-access-key#1] (from the person)]`, "[REDACTED:aws-access-key#1]", ""},
		{"text on a choice is no answer", false, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "foo", Provenance: wisp.FromPerson},
			`[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: ` + inquiry.LineNoPerson + `]`, "",
			"that is none of the options; this question takes a number from 1 to 3 (3 is none of these), or nothing to decline"},
		{"control characters are no answer", true, wisp.Answer{Outcome: wisp.OutcomeAnswered, Text: "\x1b[B\x1b[B", Provenance: wisp.FromPerson},
			`[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: ` + inquiry.LineNoPerson + `]`, "",
			"control characters, such as an arrow key or Esc, are never taken as typed text; this question takes a line of text, or nothing to decline"},
		{"an answer nobody gave is no answer", false, wisp.Answer{Outcome: wisp.OutcomeChose, Text: "./wisp.json"},
			`[wisp: your question "Which config?" (question a1b2c3d4), which waited beyond its turn: ` + inquiry.LineNoPerson + `]`, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &wisptest.Recorder{}
			q := choice
			if tc.free {
				q = free
			}
			s := newDesk(&parker{}, 0, rec).Resume(t.Context(), q, tc.answer, 4)
			if s.Line != tc.wantLine {
				t.Errorf("line\n%q, want\n%q", s.Line, tc.wantLine)
			}
			switch {
			case tc.wantFact == "" && s.Fact != nil:
				t.Errorf("fact %+v, want none", s.Fact)
			case tc.wantFact != "" && (s.Fact == nil || s.Fact.Value != tc.wantFact || s.Fact.Turn != 4):
				t.Errorf("fact %+v, want %q at turn 4", s.Fact, tc.wantFact)
			}
			ev := rec.Events(wisp.KindInquirySettled)
			if len(ev) != 1 || ev[0].Turn != 4 || ev[0].Thread != "t1" || ev[0].Data.(wisp.InquirySettledData).ID != "a1b2c3d4" {
				t.Fatalf("inquiry.settled %+v, want one on t1 at turn 4", ev)
			}
			if got := ev[0].Data.(wisp.InquirySettledData).Error; got != tc.wantErr {
				t.Errorf("inquiry.settled error = %q, want %q", got, tc.wantErr)
			}
			if tc.wantFact == "" && ev[0].Source == wisp.SourcePerson && s.Answer.Outcome != wisp.OutcomeDeclined {
				t.Errorf("inquiry.settled source = person for %+v", s.Answer)
			}
			if d := ev[0].Data.(wisp.InquirySettledData); d.FileSHA256 != "" {
				t.Errorf("inquiry.settled %+v names a file the answer did not come from", d)
			}

			// Taken from a file another process filed, whatever the
			// rules make of it, the answer names that file.
			rec = &wisptest.Recorder{}
			a := tc.answer
			a.FileSHA256 = "5e1f0000"
			s = newDesk(&parker{}, 0, rec).Resume(t.Context(), q, a, 4)
			ev = rec.Events(wisp.KindInquirySettled)
			if len(ev) != 1 || ev[0].Data.(wisp.InquirySettledData).FileSHA256 != "5e1f0000" || s.Answer.FileSHA256 != "5e1f0000" {
				t.Errorf("inquiry.settled %+v; want fileSHA256 5e1f0000", ev)
			}
		})
	}
}
