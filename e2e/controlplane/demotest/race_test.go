//go:build race

package demotest

// raceEnabled: the tests run with -race, so the demo is built with it too.
const raceEnabled = true
