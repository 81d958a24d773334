//go:build race

package grade

// raceEnabled: the binary is built with -race.
const raceEnabled = true
