package escape_test

import (
	"fmt"

	"github.com/wisp-agent/wisp/inquiry/escape"
)

func ExampleTerminal() {
	// A question that clears the screen and reverses a file name.
	question := "\x1b[2J\x1b[HOpen invoice\u202Egpj.exe? [y/n]"
	fmt.Println(escape.Terminal(question))
	// Output:
	// \e[2J\e[HOpen invoice\u{202E}gpj.exe? [y/n]
}

func ExampleUnescape() {
	original, err := escape.Unescape(`tab\there \u{200B}`)
	fmt.Printf("%q %v\n", original, err)

	_, err = escape.Unescape(`\u{41}`)
	fmt.Println(err)
	// Output:
	// "tab\there \u200b" <nil>
	// escape: offset 0: "\\u{41}": U+0041 is written as itself
}
