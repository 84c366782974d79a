package main

import (
	"charm.land/lipgloss/v2"
)

// styles is how each part of the screen is drawn. The model's dialogs
// (questions and cards) and wisp's approval dialog never share a border or
// a colour, so one cannot pass for the other.
type styles struct {
	you      lipgloss.Style // the person's messages
	reply    lipgloss.Style // the model's reply
	thinking lipgloss.Style // the model's reasoning
	call     lipgloss.Style // a tool call and its result
	note     lipgloss.Style // wisp's notes and errors
	diag     lipgloss.Style // the engine's standard error
	info     lipgloss.Style // wisp-tui's own lines
	status   lipgloss.Style // the bottom line
	cursor   lipgloss.Style // the cursor cell of a text field
	selected lipgloss.Style // the highlighted row of a picker

	asks      lipgloss.Style // the box of the model's question or card
	asksTitle lipgloss.Style
	approval  lipgloss.Style // the box of wisp's approval request
	apprTitle lipgloss.Style
	keys      lipgloss.Style // a dialog's key line

	diffAdded   lipgloss.Style // a diff's added line
	diffRemoved lipgloss.Style // a diff's removed line
	diffHunk    lipgloss.Style // a diff's hunk header
	diffFile    lipgloss.Style // a diff's file names
}

// newStyles returns the screen's styles; plain draws no colours or text
// attributes (borders stay), as the tests read the screen.
func newStyles(plain bool) styles {
	asks := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	approval := lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).Padding(0, 1)
	if plain {
		n := lipgloss.NewStyle()
		return styles{you: n, reply: n, thinking: n, call: n, note: n, diag: n, info: n, status: n,
			cursor: n, selected: n, asks: asks, asksTitle: n, approval: approval, apprTitle: n, keys: n,
			diffAdded: n, diffRemoved: n, diffHunk: n, diffFile: n}
	}
	cyan, yellow, red, grey := lipgloss.Cyan, lipgloss.BrightYellow, lipgloss.BrightRed, lipgloss.BrightBlack
	return styles{
		you:       lipgloss.NewStyle().Bold(true),
		reply:     lipgloss.NewStyle(),
		thinking:  lipgloss.NewStyle().Faint(true).Italic(true),
		call:      lipgloss.NewStyle().Foreground(grey),
		note:      lipgloss.NewStyle().Foreground(yellow),
		diag:      lipgloss.NewStyle().Foreground(red),
		info:      lipgloss.NewStyle().Faint(true),
		status:    lipgloss.NewStyle().Reverse(true),
		cursor:    lipgloss.NewStyle().Reverse(true),
		selected:  lipgloss.NewStyle().Bold(true).Foreground(cyan),
		asks:      asks.BorderForeground(cyan),
		asksTitle: lipgloss.NewStyle().Bold(true).Foreground(cyan),
		approval:  approval.BorderForeground(red),
		apprTitle: lipgloss.NewStyle().Bold(true).Foreground(lipgloss.BrightWhite).Background(lipgloss.Red),
		keys:      lipgloss.NewStyle().Faint(true),

		diffAdded:   lipgloss.NewStyle().Foreground(lipgloss.Green),
		diffRemoved: lipgloss.NewStyle().Foreground(lipgloss.Red),
		diffHunk:    lipgloss.NewStyle().Foreground(cyan),
		diffFile:    lipgloss.NewStyle().Bold(true),
	}
}

// cellWidth is how many terminal cells s takes.
func cellWidth(s string) int { return lipgloss.Width(s) }
