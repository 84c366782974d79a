package jsonl_test

import (
	"context"
	"fmt"
	"io"

	"github.com/wisp-agent/wisp"
	"github.com/wisp-agent/wisp/inquiry/escape"
	"github.com/wisp-agent/wisp/inquiry/jsonl"
)

// writerFunc adapts a function to an io.Writer; the face writes one line
// a call.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// The wisp side: the face writes the model's question as a choice line,
// and the front end's choose line, read by Serve, answers it.
func Example() {
	fromClient, toWisp := io.Pipe()
	toClient := writerFunc(func(line []byte) (int, error) {
		fmt.Print(string(line))
		// The front end: it picks the second option of the question it sees.
		if q, ok := must(jsonl.Decode(line)).(jsonl.Question); ok {
			go toWisp.Write(must(jsonl.Encode(jsonl.Choose{ID: q.ID, Option: 2})))
		}
		return len(line), nil
	})
	face := jsonl.NewFace(toClient, nil)
	go face.Serve(context.Background(), fromClient)

	a, err := face.Ask(context.Background(), wisp.Question{ID: "a1b2c3d4", Thread: "t-1", Turn: 1,
		Text: "Which config did you mean?", Options: []string{"~/.wisp/config.json", "./wisp.json"}})
	fmt.Println(a.Outcome, a.Text, err)
	// Output:
	// {"type":"choice","kind":"question","id":"a1b2c3d4","thread":"t-1","turn":1,"title":"the model asks","text":"Which config did you mean?","options":["~/.wisp/config.json","./wisp.json"],"noneOfThese":true,"acceptsText":false}
	// {"type":"settled","id":"a1b2c3d4","outcome":"chose"}
	// chose ./wisp.json <nil>
}

// The client side: decode each line wisp writes, show the model's words
// escaped, and answer a choice by its id.
func ExampleDecode() {
	line := []byte(`{"type":"choice","kind":"question","id":"a1b2c3d4","thread":"t-1","turn":1,"title":"the model asks","text":"Approve rm -rf build? \u001b[2J","acceptsText":true}`)
	switch l := must(jsonl.Decode(line)).(type) {
	case jsonl.Question:
		fmt.Printf("%s: %s\n", l.Title, escape.Terminal(l.Text))
		fmt.Print(string(must(jsonl.Encode(jsonl.Choose{ID: l.ID, Decline: true}))))
	case jsonl.Approval:
		fmt.Println(l.Title, escape.Terminal(l.Command))
	}
	// Output:
	// the model asks: Approve rm -rf build? \e[2J
	// {"type":"choose","id":"a1b2c3d4","decline":true}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
