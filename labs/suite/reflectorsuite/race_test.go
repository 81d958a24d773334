//go:build race

package reflectorsuite_test

const raceEnabled = true
