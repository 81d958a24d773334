package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	sc "github.com/informerlab/informerlab/samplecontroller"
)

// journalLine is one Foo reconcile, as --journal writes it.
type journalLine struct {
	Replica string `json:"replica"`
	Key     string `json:"key"`
	// Start and End are Unix nanoseconds: when the worker took the key
	// (StepGetKey) and when its Reconcile returned (StepReconcile).
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	OK    bool  `json:"ok"`
	// Writes counts the API writes that succeeded during the reconcile.
	Writes int    `json:"writes"`
	Error  string `json:"error,omitempty"`
}

// journal turns the Foo controller's observed steps into journal lines.
// Its observer is called from the informers' and the workers' goroutines;
// it is safe for concurrent use. Each line is written with one write(2)
// to a file opened for appending, so a replica killed with SIGKILL leaves
// every line of the reconciles that ended before it died, whole.
type journal struct {
	replica string
	f       *os.File

	mu   sync.Mutex              // guards open, err
	open map[string]*journalLine // Foo key -> its reconcile in flight
	err  error                   // the first write error; later lines are dropped
}

func openJournal(path, replica string) (*journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("samplecontroller: --journal: %w", err)
	}
	return &journal{replica: replica, f: f, open: map[string]*journalLine{}}, nil
}

// observe is the journal's sample controller Observer. Only the Foo
// controller's steps count. A successful StepAPIWrite is credited to the
// reconcile in flight: the Foo controller runs one worker, so at most one
// is; its writes to Deployments name the Deployment, not the Foo.
func (j *journal) observe(e sc.Event) {
	if e.Controller != sc.FooControllerName {
		return
	}
	now := time.Now().UnixNano()
	j.mu.Lock()
	defer j.mu.Unlock()
	switch e.Step {
	case sc.StepGetKey:
		key := e.Request.String()
		j.open[key] = &journalLine{Replica: j.replica, Key: key, Start: now}
	case sc.StepAPIWrite:
		if e.Err != nil {
			return
		}
		for _, l := range j.open {
			l.Writes++
		}
	case sc.StepReconcile:
		key := e.Request.String()
		l, ok := j.open[key]
		if !ok {
			return
		}
		delete(j.open, key)
		l.End, l.OK = now, e.Err == nil
		if e.Err != nil {
			l.Error = e.Err.Error()
		}
		j.writeLocked(l)
	}
}

func (j *journal) writeLocked(l *journalLine) {
	if j.err != nil {
		return
	}
	b, err := json.Marshal(l)
	if err == nil {
		_, err = j.f.Write(append(b, '\n'))
	}
	if err != nil {
		j.err = fmt.Errorf("samplecontroller: --journal: %w", err)
	}
}

// close closes the file and returns the first error of any write.
func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.f.Close(); err != nil && j.err == nil {
		j.err = fmt.Errorf("samplecontroller: --journal: %w", err)
	}
	return j.err
}
