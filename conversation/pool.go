package conversation

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/agent"
)

// A Pool keeps one conversation for each tool list, for the life of a
// server that runs turns for callers who each name the tools they want
// (wisp mcp's respond): the audit log, the model and the tools are wired
// once per list, and the settings read when a list is first asked for. A
// Pool is safe for concurrent use; Close it when the server ends.
type Pool struct {
	opts Options

	mu    sync.Mutex
	convs map[string]*Conversation
}

// NewPool returns a pool of conversations with opts, each but for its
// Named, which each Agent call gives. opts.Thread is ignored: the callers
// name their threads.
func NewPool(opts *Options) *Pool {
	p := &Pool{convs: map[string]*Conversation{}}
	if opts != nil {
		p.opts = *opts
	}
	p.opts.Thread = ""
	return p
}

// Agent returns the agent of the conversation with the tools named (nil:
// every tool the settings allow), starting it on the first call for that
// list; the order of the names does not matter. An error is New's.
func (p *Pool) Agent(ctx context.Context, named []string) (*agent.Agent, error) {
	key := "*"
	if named != nil {
		sorted := slices.Clone(named)
		slices.Sort(sorted)
		key = "=" + strings.Join(sorted, ",")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.convs[key]; c != nil {
		return c.Agent(), nil
	}
	o := p.opts
	o.Named = named
	c, err := New(ctx, &o)
	if err != nil {
		return nil, err
	}
	p.convs[key] = c
	return c.Agent(), nil
}

// Close closes every conversation of the pool.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for key, c := range p.convs {
		errs = append(errs, c.Close())
		delete(p.convs, key)
	}
	return errors.Join(errs...)
}
