package pipelineweb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Action is one press of a control on the page: its name and arguments, as
// the page POSTs them to /api/control.
type Action struct {
	Name string            `json:"name"`
	Args map[string]string `json:"args,omitempty"`
}

// Arg returns an argument ("" if absent).
func (a Action) Arg(name string) string { return a.Args[name] }

// IntArg returns an integer argument within [lo, hi], or an error naming it.
func (a Action) IntArg(name string, lo, hi int) (int, error) {
	s := a.Args[name]
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("pipelineweb: %s: %q is not a whole number", name, s)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("pipelineweb: %s: %d is out of range [%d, %d]", name, n, lo, hi)
	}
	return n, nil
}

// Controls carries out the actions that change the world: writes to the
// API server, faults and scenarios. The page's playback controls (pause,
// step, speed) and the slow-handler fault are the Server's own.
type Controls interface {
	// Info says what the page may offer.
	Info() Info
	// Status is shown with every state snapshot.
	Status() Status
	// Do carries out a; it returns what happened, in one sentence, or an
	// error (ErrUnknownAction for a name it does not know).
	Do(ctx context.Context, a Action) (string, error)
}

// ErrUnknownAction is returned by Controls.Do for an action it does not
// know.
var ErrUnknownAction = errors.New("pipelineweb: unknown action")

// Info is what the page may offer, fixed for a run.
type Info struct {
	// Mode describes the API server ("the embedded fakeapi", "the cluster
	// at https://...").
	Mode string `json:"mode"`
	// Namespace is where the page's Foos are created.
	Namespace string `json:"namespace"`
	// Faults is set when the faults that need fakeapi are available.
	Faults bool `json:"faults"`
	// Scenarios are the scenarios the page can play.
	Scenarios []Scenario `json:"scenarios"`
}

// Scenario is one of `demo --list-scenarios`.
type Scenario struct {
	Name     string   `json:"name"`
	Help     string   `json:"help"`
	Chapters []string `json:"chapters"`
}

// Status is the world's state beyond the boxes: the API server's and the
// faults'.
type Status struct {
	// ServerRV is the API server's current resourceVersion ("" if unknown).
	ServerRV string `json:"serverRV,omitempty"`
	// LatencyMS is the injected API latency.
	LatencyMS float64 `json:"latencyMs,omitempty"`
	// Scenario is the scenario playing ("" if none).
	Scenario string `json:"scenario,omitempty"`
	// Replicas, when set, is the ring of sharded replicas the page shows
	// (demo --web --shards N).
	Replicas *Replicas `json:"replicas,omitempty"`
}

// Replicas is the state of a ring of sharded replicas: one lane per
// replica, the holder of each bucket as its Lease says, and the overlap
// detector.
type Replicas struct {
	Lanes []ReplicaLane `json:"lanes"`
	// Holders has one entry per bucket: the identity in its Lease, "" when
	// it has none or its Lease has expired.
	Holders []string `json:"holders"`
	// Overlaps counts the times two replicas were in a Reconcile of one key
	// at once: the protocol keeps it at 0.
	Overlaps int `json:"overlaps"`
	// LeaseDurationMS is the ring's LeaseDuration: how long a dead
	// replica's buckets stay its own.
	LeaseDurationMS float64 `json:"leaseDurationMs"`
}

// ReplicaLane is one replica of a ring.
type ReplicaLane struct {
	Name  string `json:"name"`
	Alive bool   `json:"alive"`
	// DeadForMS is how long ago a dead replica was killed.
	DeadForMS float64 `json:"deadForMs,omitempty"`
	// Cached is how many Foos its informer's cache holds.
	Cached int `json:"cached"`
	// Deployments is how many Deployments its Deployment informer's cache
	// holds.
	Deployments int `json:"deployments"`
	// Queue is how many Requests wait on its Foo controller's queue for a
	// worker.
	Queue int `json:"queue"`
	// InFlight is how many of its Reconciles are running.
	InFlight int `json:"inFlight"`
	// Held are the buckets it holds, as it sees them.
	Held []int `json:"held"`
	// Relists counts the relists of its Foo informer since it started (the
	// initial list not counted): one each time its buckets, and so its
	// shard selector, changed.
	Relists int `json:"relists"`
	// LastRelistAgoMS is how long ago the last relist began (0 if none);
	// LastRelistAdded and LastRelistDeleted count the Foos added to and
	// deleted from the cache since: a takeover's burst of gained Foos.
	LastRelistAgoMS   float64 `json:"lastRelistAgoMs,omitempty"`
	LastRelistAdded   int     `json:"lastRelistAdded"`
	LastRelistDeleted int     `json:"lastRelistDeleted"`
}

// playback carries out the actions the Server handles itself.
func (s *Server) playback(a Action) (string, bool, error) {
	v := s.rec.Valve()
	switch a.Name {
	case "pause":
		v.Pause()
		return "paused: the API server's answers wait at the valve before the Reflectors; press Step to let one through", true, nil
	case "resume":
		v.Resume()
		return "resumed: everything held goes through", true, nil
	case "step":
		if !v.Step() {
			return "", true, errors.New("pipelineweb: step: not paused (press Pause first)")
		}
		return "one list, watch or watch event let through", true, nil
	case "speed":
		f, err := strconv.ParseFloat(a.Arg("value"), 64)
		if err != nil || f <= 0 || f > 1 {
			return "", true, fmt.Errorf("pipelineweb: speed: %q is not a number in (0, 1]", a.Arg("value"))
		}
		v.SetSpacing(spacingFor(f))
		if f == 1 {
			return "speed 1: no spacing between watch events", true, nil
		}
		return fmt.Sprintf("speed %g: at most one watch event every %s", f, spacingFor(f)), true, nil
	case "slow-handler":
		ms, err := a.IntArg("ms", 0, 5000)
		if err != nil {
			return "", true, err
		}
		s.rec.SetSlowHandler(time.Duration(ms) * time.Millisecond)
		if ms == 0 {
			return "handlers are quick again", true, nil
		}
		return fmt.Sprintf("every handler call now takes %dms more: notifications pile up in the handlers' buffers", ms), true, nil
	}
	return "", false, nil
}

// spacingFor is the valve spacing of a speed in (0, 1]: none at 1, 2.4s
// at 0.25.
func spacingFor(speed float64) time.Duration {
	return time.Duration((1/speed - 1) * float64(800*time.Millisecond))
}
