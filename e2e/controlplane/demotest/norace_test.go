//go:build !race

package demotest

const raceEnabled = false
