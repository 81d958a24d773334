package fakeapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// List semantics, as the real apiserver documents them:
//
//	resourceVersion  match         limit  served from
//	""               -             any    latest (consistent), paginated
//	"0"              - / NotOlder  any    latest, whole: limit ignored
//	N                -             none   latest, if N <= current (NotOlderThan)
//	N                -             set    snapshot at N (Exact), paginated
//	N                NotOlderThan  any    latest, paginated
//	N                Exact         any    snapshot at N, paginated
//
// N ahead of the server is 504 ResourceVersionTooLarge; a snapshot older
// than the history window is 410 Expired. A continue token carries the
// snapshot's resourceVersion and the last key served, and expires the same
// way.

// listResult is one page of a list, in key order. The items are stored
// objects: read-only.
type listResult struct {
	items     []*unstructured.Unstructured
	rv        uint64
	cont      string
	remaining *int64
	// shardInfo echoes the shard selector, in canonical form, on a
	// filtered list of a built-in kind; "" otherwise (shard_selector.go).
	shardInfo string
}

// continueToken is the opaque continue value, base64url JSON as on the real
// server: {"v":"meta.k8s.io/v1","rv":N,"start":"/<key>\x00"}, where key is
// the next key to serve, relative to the list's prefix (the namespace of a
// namespaced list). rv -1 means "continue at the latest state": the token a
// 410 for an expired one offers.
type continueToken struct {
	APIVersion string `json:"v"`
	RV         int64  `json:"rv"`
	Start      string `json:"start"`
}

const continueTokenVersion = "meta.k8s.io/v1"

// listPrefix is the part of every key of a list that its tokens leave out:
// "ns/" for a list in one namespace, "" otherwise.
func listPrefix(r *resource, ns string) string {
	if r.info.Namespaced && ns != "" {
		return ns + "/"
	}
	return ""
}

func encodeContinue(rv int64, prefix, lastKey string) string {
	data, _ := json.Marshal(continueToken{APIVersion: continueTokenVersion, RV: rv, Start: "/" + strings.TrimPrefix(lastKey, prefix) + "\x00"})
	return base64.RawURLEncoding.EncodeToString(data)
}

// decodeContinue checks a token the way the real server does, in its words,
// and returns its resourceVersion and the key to start from. A start key
// that path cleaning would change ("/../secrets/x") is refused: the real
// server so keeps a token inside the list's prefix.
func decodeContinue(s, prefix string) (int64, string, error) {
	invalid := func(msg string) error {
		return apierrors.NewBadRequest("invalid continue token: continue key is not valid" + msg)
	}
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, "", invalid(": " + err.Error())
	}
	var t continueToken
	if err := json.Unmarshal(data, &t); err != nil {
		return 0, "", invalid(": " + err.Error())
	}
	switch {
	case t.APIVersion != continueTokenVersion:
		return 0, "", invalid(": server does not recognize this encoded version " + t.APIVersion)
	case t.RV == 0:
		return 0, "", invalid(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	case t.Start == "":
		return 0, "", invalid(": encoded start key empty (version meta.k8s.io/v1)")
	}
	key := t.Start
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	if path.Clean(key) != key {
		return 0, "", invalid(": " + t.Start)
	}
	return t.RV, prefix + key[1:], nil
}

// inconsistentContinue is the real server's message for an expired token.
const inconsistentContinue = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. " +
	"Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

func parseRV(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q: must be a non-negative integer", s))
	}
	return n, nil
}

// validateListOptions mirrors the real server's validation of a list.
func validateListOptions(opts metav1.ListOptions) error {
	var errs field.ErrorList
	match := opts.ResourceVersionMatch
	p := field.NewPath("resourceVersionMatch")
	if match != "" {
		if opts.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if opts.Continue != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if match != metav1.ResourceVersionMatchExact && match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.NotSupported(p, match, []string{string(metav1.ResourceVersionMatchExact), string(metav1.ResourceVersionMatchNotOlderThan), ""}))
		}
		if match == metav1.ResourceVersionMatchExact && opts.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(p, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if opts.SendInitialEvents != nil {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	if len(errs) > 0 {
		return errInvalidOptions("ListOptions", errs)
	}
	if opts.Continue != "" && opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		return apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
	}
	return nil
}

func (s *Server) list(r *resource, ns string, opts metav1.ListOptions) (*listResult, error) {
	sel, err := newSelector(r, ns, opts, s.opts.IgnoreShardSelector)
	if err != nil {
		return nil, err
	}
	if err := validateListOptions(opts); err != nil {
		return nil, err
	}
	limit := max(opts.Limit, 0)
	prefix := listPrefix(r, ns)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return nil, errClosed()
	}
	snapRV, start := s.rv, ""
	switch {
	case opts.Continue != "":
		rv, key, err := decodeContinue(opts.Continue, prefix)
		if err != nil {
			return nil, err
		}
		switch {
		case rv < 0: // continue at the latest state
		case uint64(rv) > s.rv:
			return nil, errTooLarge(uint64(rv), s.rv)
		case uint64(rv) < s.compactedRV:
			// The real server's answer offers a token that continues at the
			// latest state, at the price of consistency.
			err := apierrors.NewResourceExpired(inconsistentContinue)
			err.ErrStatus.ListMeta.Continue = encodeContinue(-1, prefix, key)
			return nil, err
		default:
			snapRV = uint64(rv)
		}
		start = key
	case opts.ResourceVersion == "":
	case opts.ResourceVersion == "0":
		limit = 0 // "any age": served whole from the cache
	default:
		n, err := parseRV(opts.ResourceVersion)
		if err != nil {
			return nil, err
		}
		if n > s.rv {
			return nil, errTooLarge(n, s.rv)
		}
		exact := opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact ||
			(opts.ResourceVersionMatch == "" && limit > 0)
		if exact {
			if n < s.compactedRV {
				return nil, apierrors.NewResourceExpired(fmt.Sprintf("The resourceVersion for the provided list is too old: %d (%d)", n, s.compactedRV+1))
			}
			snapRV = n
		}
	}

	snap := s.snapshotLocked(r, snapRV)
	keys := make([]string, 0, len(snap))
	for k := range snap {
		if k >= start {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	res := &listResult{rv: snapRV, items: []*unstructured.Unstructured{}, shardInfo: shardInfo(r, sel)}
	for i, k := range keys {
		o := snap[k]
		if !sel.matches(o) {
			continue
		}
		if limit > 0 && int64(len(res.items)) == limit {
			last := res.items[len(res.items)-1]
			res.cont = encodeContinue(int64(snapRV), prefix, r.key(last.GetNamespace(), last.GetName()))
			if !sel.filtering() {
				var n int64
				for _, rest := range keys[i:] {
					if sel.matches(snap[rest]) {
						n++
					}
				}
				res.remaining = &n
			}
			break
		}
		res.items = append(res.items, o)
	}
	return res, nil
}

// snapshotLocked returns r's objects as they were at resourceVersion rv, by
// undoing the history events after rv. rv must be >= compactedRV. The map
// must not be modified when rv is the current resourceVersion.
func (s *Server) snapshotLocked(r *resource, rv uint64) map[string]*unstructured.Unstructured {
	if rv >= s.rv {
		return r.items
	}
	snap := maps.Clone(r.items)
	for i := len(s.history) - 1; i >= 0 && s.history[i].rv > rv; i-- {
		ev := s.history[i]
		if ev.res != r {
			continue
		}
		if ev.prev == nil {
			delete(snap, ev.key)
		} else {
			snap[ev.key] = ev.prev
		}
	}
	return snap
}

// get returns the stored object (read-only).
func (s *Server) get(r *resource, ns, name string) (*unstructured.Unstructured, error) {
	if !r.info.Namespaced {
		ns = ""
	} else if ns == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s is namespaced: a namespace is required", r.info.GVR.Resource))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return nil, errClosed()
	}
	o, ok := r.items[r.key(ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(r.gr(), name)
	}
	return o, nil
}
