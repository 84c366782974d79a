package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/inquiry/facetest"
)

// fakeRoom plays one person's act.
type fakeRoom struct {
	mu     sync.Mutex
	posted []string
	reply  chan string
}

func (r *fakeRoom) Post(text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.posted = append(r.posted, text)
	return nil
}

func (r *fakeRoom) Next(ctx context.Context) (string, error) {
	select {
	case m := <-r.reply:
		return m, nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

func TestFaceKeepsTheContract(t *testing.T) {
	facetest.Run(t, func(t *testing.T, p facetest.Person) facetest.Harness {
		acts := p.Acts()
		r := &fakeRoom{reply: make(chan string, len(acts))}
		for _, p := range acts {
			switch p.Act {
			case facetest.Choose:
				r.reply <- fmt.Sprint(p.Option + 1)
			case facetest.ChooseNone:
				r.reply <- "4" // the suite's choices have three options
			case facetest.Type:
				r.reply <- p.Text
			case facetest.Decline:
				r.reply <- "/decline"
			case facetest.Interrupt:
				r.reply <- "/stop"
			}
		}
		return facetest.Harness{Face: Face{Room: r}}
	}, nil)
}

func TestFaceKeepsTheCardContract(t *testing.T) {
	facetest.RunCards(t, func(t *testing.T, acts []facetest.Person) facetest.CardHarness {
		var all []facetest.Person
		for _, p := range acts {
			all = append(all, p.Acts()...)
		}
		r := &fakeRoom{reply: make(chan string, len(all))}
	script:
		for _, p := range all {
			switch p.Act {
			case facetest.Choose:
				r.reply <- fmt.Sprint(p.Option + 1)
			case facetest.ChooseSeveral:
				var nums []string
				for _, o := range p.Options {
					nums = append(nums, fmt.Sprint(o+1))
				}
				r.reply <- strings.Join(nums, " ")
			case facetest.Type:
				r.reply <- p.Text
			case facetest.Decline:
				r.reply <- "/decline"
			case facetest.Interrupt:
				r.reply <- "/stop"
				break script
			case facetest.Silent:
				break script
			}
		}
		return facetest.CardHarness{Face: Face{Room: r}}
	}, &facetest.Options{NoSecrets: true})
}
