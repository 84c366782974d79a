package secrets_test

import (
	"fmt"

	"github.com/wisp-agent/wisp/policy/secrets"
)

func ExampleRedactor_Redact() {
	r := secrets.NewRedactor()
	token := "ghp_" + "FAKE0test1EXAMPLE2not3real4Token5w6x"

	out, findings := r.Redact("Here is my token: " + token)
	fmt.Println(out)
	fmt.Println(findings)

	// The same value keeps its number for the life of the Redactor.
	out, _ = r.Redact("Use " + token + " again, with DB_PASSWORD=FakePass-EXAMPLE-123")
	fmt.Println(out)
	// Output:
	// Here is my token: [REDACTED:github-pat#1]
	// [{github-pat [REDACTED:github-pat#1]}]
	// Use [REDACTED:github-pat#1] again, with DB_PASSWORD=[REDACTED:generic-secret#1]
}

func ExampleScan() {
	text := "postgres://app:FakePassw0rd-EXAMPLE@db.example.invalid/app"
	for _, m := range secrets.Scan(text) {
		fmt.Println(m.Rule, text[m.Start:m.End])
	}
	// Output:
	// url-password FakePassw0rd-EXAMPLE
}

func ExampleAsksForSecret() {
	for _, q := range []string{
		"What token limit should I use?",
		"Could you paste your GitHub token here?",
		"Please type your p a s s w o r d.",
	} {
		kind, ok := secrets.AsksForSecret(q)
		fmt.Printf("%v %q\n", ok, kind)
	}
	// Output:
	// false ""
	// true "token"
	// true "password"
}
