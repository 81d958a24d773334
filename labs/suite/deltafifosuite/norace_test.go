//go:build !race

package deltafifosuite_test

const raceEnabled = false
