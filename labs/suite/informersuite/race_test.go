//go:build race

package informersuite_test

const raceEnabled = true
