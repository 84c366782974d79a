// Command embed runs a conversation with every guarantee wisp chat keeps,
// on a face of its own: the first line of standard input is the person's
// message, and each line after it answers a question.
//
//	printf 'Replace the config\n2\n' | go run ./examples/embed
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/conversation"
	"github.com/wisp-agent/wisp/home"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/models/script"
)

func main() {
	dir, err := home.Find(os.Getenv("WISP_HOME"), os.UserHomeDir)
	model, err2 := script.Load("examples/scripts/ask.jsonl")
	if err = errors.Join(err, err2); err == nil {
		err = run(context.Background(), dir, model, os.Stdin, os.Stdout)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// run has one turn with model in the wisp home dir, on the lines of in.
func run(ctx context.Context, dir string, model wisp.Model, in io.Reader, out io.Writer) error {
	lines := bufio.NewScanner(in)
	face := wisp.InquirerFunc(func(ctx context.Context, q wisp.Question) (wisp.Answer, error) {
		fmt.Fprintf(out, "? %q %q\n", q.Text, q.Options)
		for lines.Scan() {
			a, err := q.Typed(lines.Text())
			if err == nil {
				return a, nil
			}
			fmt.Fprintln(out, err) // what the question takes; read again
		}
		return wisp.Answer{}, io.ErrUnexpectedEOF // no line is no answer
	})
	conv, err := conversation.New(ctx, &conversation.Options{Home: dir, Model: model, Named: []string{"ask"}, Face: face})
	if err != nil {
		return err
	}
	defer conv.Close()
	lines.Scan()
	reply, err := conv.Respond(ctx, lines.Text())
	fmt.Fprintln(out, escape.Terminal(reply.Text))
	return err
}
