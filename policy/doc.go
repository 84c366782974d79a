// Package policy holds the rules that stand between the model and what it
// asks wisp to do: the classifier, which rates a command safe, moderate or
// dangerous, and the approval gate, which puts a request to the person
// through a wisp.Approver, narrows the answer to the scopes the request
// allows, remembers answers of "this session" and records every step in the
// audit.
//
// The classifier is advisory and fails closed: a command it does not know
// is dangerous, never safe. A row may hand what follows its words to a
// Judge of its own package: policy/shell reads the command line of
// run_command that way. The gate fails closed too: a declined,
// timed-out, cancelled or unreadable request is never an approval.
package policy
