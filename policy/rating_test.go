package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp/policy"
)

func TestRatingNames(t *testing.T) {
	tests := []struct {
		r    policy.Rating
		want string
	}{
		{policy.Safe, "safe"},
		{policy.Moderate, "moderate"},
		{policy.Dangerous, "dangerous"},
		{policy.Rating(7), "Rating(7)"},
		{policy.Rating(-1), "Rating(-1)"},
	}
	for _, tc := range tests {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("Rating(%d).String() = %q, want %q", int(tc.r), got, tc.want)
		}
	}
	if !(policy.Safe < policy.Moderate && policy.Moderate < policy.Dangerous) {
		t.Errorf("ratings are not ordered safe < moderate < dangerous")
	}
	var zero policy.Rating
	if zero != policy.Safe {
		t.Errorf("zero Rating = %v, want safe", zero)
	}
}

func TestParseRating(t *testing.T) {
	tests := []struct {
		in      string
		want    policy.Rating
		wantErr bool
	}{
		{"safe", policy.Safe, false},
		{"moderate", policy.Moderate, false},
		{"dangerous", policy.Dangerous, false},
		{" Dangerous\n", policy.Dangerous, false},
		{"MODERATE", policy.Moderate, false},
		{"", policy.Safe, true},
		{"high", policy.Safe, true},
		{"Rating(7)", policy.Safe, true},
		{"safe-ish", policy.Safe, true},
	}
	for _, tc := range tests {
		got, err := policy.ParseRating(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseRating(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestRatingText(t *testing.T) {
	var v struct{ Threshold policy.Rating }
	if err := json.Unmarshal([]byte(`{"Threshold":"moderate"}`), &v); err != nil || v.Threshold != policy.Moderate {
		t.Fatalf("Unmarshal moderate = %v, %v; want moderate", v.Threshold, err)
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"Threshold":"moderate"}` {
		t.Errorf("Marshal = %s, %v; want {\"Threshold\":\"moderate\"}", b, err)
	}
	if err := json.Unmarshal([]byte(`{"Threshold":"lax"}`), &v); err == nil {
		t.Errorf("Unmarshal lax: no error, want one")
	}
	if _, err := json.Marshal(struct{ R policy.Rating }{policy.Rating(9)}); err == nil {
		t.Errorf("Marshal Rating(9): no error, want one")
	}
}
