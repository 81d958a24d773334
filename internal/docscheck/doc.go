// Package docscheck keeps the teaching material honest. It has no code of its
// own, only tests, which run with the rest of the module (go test ./...) and
// fail when the docs drift from the code:
//
//   - every `pkg.Name` in the informerlab column of docs/mapping.md is an
//     exported name (or a method or field of one) of that package, and every
//     exported name of every package is in that column;
//   - every `go test ./pkg -run PATTERN` command in README.md and docs/*.md
//     selects at least one test, example, benchmark or fuzz target of that
//     package, for every alternative of PATTERN;
//   - every relative link in README.md and docs/*.md leads to a file or
//     directory that exists.
//
// Each checker is also tested on small inputs, so that a checker that passes
// everything cannot go unnoticed.
package docscheck
