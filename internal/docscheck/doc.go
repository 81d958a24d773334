// Package docscheck keeps the teaching material honest. It has no code of its
// own, only tests, which run with the rest of the module (go test ./...) and
// fail when the docs drift from the code:
//
//   - every `pkg.Name` in the informerlab column of docs/mapping.md is an
//     exported name (or a method or field of one) of that package, and every
//     exported name of every package is in that column;
//   - every test command in README.md, docs/*.md, bench/README.md, the labs'
//     READMEs and every package's doc.go
//     selects, with its run pattern, at least one test, example, benchmark
//     or fuzz target of the package it names, for every alternative of the
//     pattern;
//   - every library package imports only packages below it
//     (TestLayersImportOnlyDownward: the controller core never imports
//     the manager, sharding never imports a view, fakeapi and client import
//     no pipeline package);
//   - every relative link in those Markdown files leads to a file or
//     directory that exists;
//   - every block of quoted output (a fenced block marked "output" right
//     after a test command with -run and -v) appears, line by line and in
//     order, in what that command prints:
//     TestDocsQuotedOutputAppearsInCommandOutput runs those commands, once
//     each.
//
// TestDocsCommandsNarrate is a measurement, not a check: with
// DOCSCHECK_NARRATION=1 it runs every test command of docs/*.md that has
// -run and -v, and counts those that print more than go test's own lines.
//
// Each checker is also tested on small inputs, so that a checker that passes
// everything cannot go unnoticed.
package docscheck
