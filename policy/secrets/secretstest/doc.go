// Package secretstest holds fake credentials for tests: a generator for
// every rule of package secrets, and a corpus of credential shapes to run
// through every place wisp writes (the audit log, thread files, the
// pending and approvals folders, config.json, the lines the CLI prints),
// with [Leaks] to say whether any of them got through.
//
// Every credential here is built from random characters in the rule's
// alphabet and a fixed marker word: "FAKE" where the alphabet has those
// letters, "fake" where it is lower case, and "fa4e" where it is hex. None
// is a real credential.
//
// The package imports nothing of wisp, so package secrets' own tests can
// use it.
package secretstest
