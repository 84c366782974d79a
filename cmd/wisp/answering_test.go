package main

import (
	"testing"
	"time"
)

// The times in lists and headings are rough, in their largest whole unit.
func TestAgo(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Minute, "just now"},
		{0, "just now"},
		{999 * time.Millisecond, "just now"},
		{time.Second, "1 s ago"},
		{59 * time.Second, "59 s ago"},
		{time.Minute, "1 min ago"},
		{90 * time.Second, "1 min ago"},
		{59*time.Minute + 59*time.Second, "59 min ago"},
		{time.Hour, "1 h ago"},
		{2 * time.Hour, "2 h ago"},
		{47 * time.Hour, "47 h ago"},
		{48 * time.Hour, "2 days ago"},
		{72 * time.Hour, "3 days ago"},
	}
	for _, tc := range tests {
		if got := ago(tc.d); got != tc.want {
			t.Errorf("ago(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFromNow(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "any moment"},
		{500 * time.Millisecond, "any moment"},
		{48 * time.Second, "in 48 s"},
		{9*time.Minute + 59*time.Second, "in 9 min"},
	}
	for _, tc := range tests {
		if got := fromNow(tc.d); got != tc.want {
			t.Errorf("fromNow(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
