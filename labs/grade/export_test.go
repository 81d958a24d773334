package grade

import "time"

// GradeInChild grades mutant in a child process with the given watchdog
// and returns the behaviours that failed.
func GradeInChild(helperTest, mutant string, watchdog time.Duration) ([]string, error) {
	r, err := gradeInChild(helperTest, mutant, watchdog)
	return r.failed, err
}
