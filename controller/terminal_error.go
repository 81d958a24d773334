package controller

// TerminalError wraps err to say that retrying will not help: the controller
// logs it and counts it but does not requeue the Request. Use it for input
// that is wrong and will stay wrong until someone edits the object (an invalid
// spec); the edit's event triggers the next Reconcile.
//
// errors.Is(err, TerminalError(nil)) reports whether err is, or wraps,
// a terminal error; errors.Unwrap and errors.Is/As see through it to err.
//
// client-go: controller-runtime pkg/reconcile.TerminalError.
func TerminalError(err error) error {
	return &terminalError{err: err}
}

type terminalError struct {
	err error
}

func (te *terminalError) Error() string {
	if te.err == nil {
		return "terminal error"
	}
	return "terminal error: " + te.err.Error()
}

func (te *terminalError) Unwrap() error { return te.err }

// Is makes every terminal error match every other, so that
// errors.Is(err, TerminalError(nil)) detects one anywhere in err's chain.
func (te *terminalError) Is(target error) bool {
	_, ok := target.(*terminalError)
	return ok
}
