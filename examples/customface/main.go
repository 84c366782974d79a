package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/wisp-agent/wisp/agent"
	"github.com/wisp-agent/wisp/inquiry"
	"github.com/wisp-agent/wisp/models/script"
	"github.com/wisp-agent/wisp/tools"
	"github.com/wisp-agent/wisp/tools/ask"
)

// stdioRoom is a chat room on standard input and output.
type stdioRoom struct {
	out   io.Writer
	lines chan string
}

func newStdioRoom(in io.Reader, out io.Writer) *stdioRoom {
	r := &stdioRoom{out: out, lines: make(chan string)}
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	return r
}

func (r *stdioRoom) Post(text string) error { _, err := fmt.Fprintln(r.out, text); return err }

func (r *stdioRoom) Next(ctx context.Context) (string, error) {
	select {
	case l, ok := <-r.lines:
		if !ok {
			return "", io.EOF
		}
		return l, nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

func main() {
	model, err := script.Load("examples/scripts/ask.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	desk := inquiry.NewDesk(Face{Room: newStdioRoom(os.Stdin, os.Stdout)}, nil)
	reg := tools.NewRegistry()
	if err := reg.AddOptIn(ask.New(desk)); err != nil {
		log.Fatal(err)
	}
	set, err := reg.Select(tools.Selection{Named: []string{ask.Name}})
	if err != nil {
		log.Fatal(err)
	}
	a := agent.New(model, &agent.Options{Tools: set})
	reply, err := a.Respond(context.Background(), "room", "Replace the config with the new defaults.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Text)
}
