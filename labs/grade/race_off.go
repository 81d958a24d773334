//go:build !race

package grade

// raceEnabled: the binary is built without -race.
const raceEnabled = false
