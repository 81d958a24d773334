package fakeapi

import (
	"fmt"
	"slices"
	"strconv"
)

// CheckInvariants exposes checkInvariants to the external test package.
func (s *Server) CheckInvariants() error { return s.checkInvariants() }

// OpenWatches returns the number of registered live watches.
func (s *Server) OpenWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

// checkInvariants verifies the invariants written on Server and watcher.
func (s *Server) checkInvariants() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.history) > s.opts.HistoryLimit {
		return fmt.Errorf("history has %d events, limit %d", len(s.history), s.opts.HistoryLimit)
	}
	if s.compactedRV < initialRV || s.compactedRV > s.rv {
		return fmt.Errorf("compactedRV %d outside [%d, rv %d]", s.compactedRV, initialRV, s.rv)
	}
	prev := s.compactedRV
	for _, ev := range s.history {
		if ev.rv <= prev {
			return fmt.Errorf("history not strictly increasing after compaction point: %d after %d", ev.rv, prev)
		}
		if got := ev.obj.GetResourceVersion(); got != strconv.FormatUint(ev.rv, 10) {
			return fmt.Errorf("history event %d carries object resourceVersion %q", ev.rv, got)
		}
		prev = ev.rv
	}
	if prev > s.rv {
		return fmt.Errorf("history reaches %d beyond current %d", prev, s.rv)
	}
	uids := map[string]string{}
	for _, r := range s.resources {
		for k, o := range r.items {
			rv, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
			initial := r.info.GVR == namespacesGVR && slices.Contains(DefaultNamespaces, k)
			if err != nil || (rv <= initialRV && !(initial && rv == initialRV)) || rv > s.rv {
				return fmt.Errorf("%s %s: resourceVersion %q outside (%d, %d]", r.info.GVR.Resource, k, o.GetResourceVersion(), initialRV, s.rv)
			}
			if k != r.key(o.GetNamespace(), o.GetName()) {
				return fmt.Errorf("%s: stored under %q but named %q/%q", r.info.GVR.Resource, k, o.GetNamespace(), o.GetName())
			}
			if gen := o.GetGeneration(); (gen >= 1) != r.tracksGeneration() {
				return fmt.Errorf("%s %s: generation %d (kept by the server: %v)", r.info.GVR.Resource, k, gen, r.tracksGeneration())
			}
			uid := string(o.GetUID())
			if other, dup := uids[uid]; dup || uid == "" {
				return fmt.Errorf("%s %s: uid %q empty or shared with %s", r.info.GVR.Resource, k, uid, other)
			}
			uids[uid] = k
		}
	}
	for w := range s.watchers {
		w.mu.Lock()
		n, limit := 0, w.limit
		for _, it := range w.queue {
			if !it.last {
				n++
			}
		}
		w.mu.Unlock()
		if n > limit {
			return fmt.Errorf("watch queue holds %d items, limit %d", n, limit)
		}
	}
	return nil
}
