package informer

import "fmt"

// errorf builds an error prefixed with the package name.
func errorf(format string, args ...any) error {
	return fmt.Errorf("informer: "+format, args...)
}
