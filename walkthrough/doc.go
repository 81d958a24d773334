// Package walkthrough holds no code, only tests: runnable demonstrations of
// the things learners most often get wrong about informers and controllers,
// each the evidence for one section of docs/confusions.md.
package walkthrough
