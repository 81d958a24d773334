// Package cli is what the project's long-running commands (cmd/fakeapi,
// cmd/samplecontroller) share around their flags: a bad command line is a
// *UsageError, and Main runs a command under a context that SIGINT and
// SIGTERM cancel (the command then stops gracefully: a server drains, a
// sharded replica releases its buckets) and turns what it returned into
// the exit status — 0 for nil, 2 for a *UsageError, 1 for anything else,
// the error printed on standard error. cmd/demo keeps its own shape: it
// also reads standard input.
package cli
