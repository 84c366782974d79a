// Package wisp is the vocabulary of wisp, an SDK for local AI agents that
// work beside a person.
//
// The package holds only interfaces, value types and sentinel errors, and
// imports nothing but the standard library. The interfaces, the contracts
// between wisp's parts, are in wisp.go; the types they speak in are beside
// it. Implementations live below it:
//
//   - agent runs turns: model, tool calls, results, model, until a reply;
//   - tools decides which tools a conversation gets, validates arguments,
//     and builds a tool from a Go function and its argument type (tools.New);
//   - inquiry enforces the question contract once, whatever face the person uses;
//   - inquiry/terminal, inquiry/unattended and other faces only show and read;
//   - policy/secrets holds the credential rules; audit the hash-chained log;
//   - models/script is a scripted model for tests and demos.
//
// A question is never a permission: an answer runs nothing, and every
// command the model runs afterwards still passes policy and approval.
package wisp
