package terminal

import (
	"context"
	"os"
	"slices"
	"sync"
)

// Interrupts routes the person's Ctrl-C as it comes: to the part of the
// program that took it (a chat stops its turn with it, Chat.Interrupt; a
// JSON-lines session its own, jsonl.SessionOptions.TakeInterrupts), or
// else to stop, which stops the program. A Ctrl-C is never kept for
// later, so none can stop work the person approves afterwards. Its
// methods are safe for concurrent use.
type Interrupts struct {
	stop func()

	mu     sync.Mutex
	takers []*func()
}

// NewInterrupts returns Interrupts that call stop on a Ctrl-C nothing
// has taken.
func NewInterrupts(stop func()) *Interrupts { return &Interrupts{stop: stop} }

// Take hands each Ctrl-C to f until release is called; the last taker
// that has not released gets it.
func (c *Interrupts) Take(f func()) (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := &f
	c.takers = append(c.takers, p)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.takers = slices.DeleteFunc(c.takers, func(q *func()) bool { return q == p })
	}
}

// Route hands each Ctrl-C from ch (os.Interrupt, as signal.Notify
// delivers it) to its taker, or to stop, until ctx is done.
func (c *Interrupts) Route(ctx context.Context, ch <-chan os.Signal) {
	for {
		select {
		case <-ch:
			c.mu.Lock()
			f := c.stop
			if n := len(c.takers); n > 0 {
				f = *c.takers[n-1]
			}
			c.mu.Unlock()
			f()
		case <-ctx.Done():
			return
		}
	}
}
