package reflector

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// list is the listing state (diagram step 1, then step 2): read the whole
// resource, then hand it to Store.Replace.
//
//  1. Pick the resourceVersion (relistResourceVersion): "0" the first time,
//     the last seen one afterwards, "" once that one is unavailable.
//  2. List, in pages when paging applies (listPages).
//  3. If the server says the resourceVersion is expired (410) or too large,
//     list again at once at "" — that read always succeeds on a healthy
//     server, so the Reflector makes progress.
//  4. Store.Replace(items, listRV), then remember listRV: the watch starts there.
func (r *Reflector) list(ctx context.Context) transition {
	from := r.widenFrom
	r.widenFrom, r.replay = nil, nil
	r.listedShard = r.currentShard()
	if err := r.listedShard.parseErr(); err != nil {
		return transition{to: stateRelistBackoff, cause: err.Error(), err: err}
	}
	if from != nil {
		if t, ok := r.listGained(ctx, *from); ok {
			return t
		}
	}
	rv := r.relistResourceVersion()
	listRV, items, paginated, err := r.listPages(ctx, rv)
	if err != nil && isResourceVersionUnavailable(err) && ctx.Err() == nil {
		r.setResourceVersionUnavailable(true)
		r.enter(stateListing, fmt.Sprintf("list at resourceVersion %q: %v; listing at \"\"", rv, err))
		rv = r.relistResourceVersion()
		listRV, items, paginated, err = r.listPages(ctx, rv)
	}
	if ctx.Err() != nil {
		return transition{to: stateStopped, cause: "context cancelled while listing"}
	}
	if err != nil {
		err = fmt.Errorf("reflector: failed to list %s: %w", r.typeDescription, err)
		return transition{to: stateRelistBackoff, cause: err.Error(), err: err}
	}
	if rv == "0" && paginated {
		r.paginatedResult = true
	}
	r.setResourceVersionUnavailable(false)
	items = r.filterSelected(items)

	// Step 2 (add objects): the whole list replaces what the Store holds.
	if err := r.store.Replace(items, listRV); err != nil {
		err = fmt.Errorf("reflector: unable to sync list result: %w", err)
		return transition{to: stateRelistBackoff, cause: err.Error(), err: err}
	}
	r.setLastSyncResourceVersion(listRV)
	return transition{to: stateWatching,
		cause: fmt.Sprintf("listed %d objects at resourceVersion %q", len(items), listRV)}
}

// pageSize is the Limit for a list at resourceVersion rv (see
// Options.PageSize). A list at a specific resourceVersion is not paginated by
// default because only an unpaginated list can be answered from the API
// server's watch cache; paginating it would send every relist of every
// Reflector to etcd. A list at "0" is answered from the cache whatever the
// Limit, so asking for pages costs nothing there and helps a server without a
// cache.
func (r *Reflector) pageSize(rv string) int64 {
	switch {
	case r.opts.PageSize > 0:
		return r.opts.PageSize
	case r.paginatedResult:
		return DefaultPageSize
	case rv != "" && rv != "0":
		return 0
	default:
		return DefaultPageSize
	}
}

// listPages lists at resourceVersion rv and follows continue tokens until the
// last page. It returns the snapshot's resourceVersion (from the first page),
// every item, and whether more than one page was read. If a continue token
// expires half way (the server compacted its history), it falls back to one
// unpaginated list at rv.
func (r *Reflector) listPages(ctx context.Context, rv string) (string, []any, bool, error) {
	shard, label := r.listedShard.expr, r.listedShard.label
	opts := metav1.ListOptions{ResourceVersion: rv, Limit: r.pageSize(rv), ShardSelector: shard, LabelSelector: label}
	var (
		listRV string
		items  []any
		pages  int
	)
	for {
		r.metrics.list()
		obj, err := r.lw.List(ctx, opts)
		if err != nil {
			if opts.Continue != "" && isExpiredError(err) {
				r.logger.Debug("reflector: continue token expired, listing in one request", "err", err)
				r.metrics.list()
				obj, err = r.lw.List(ctx, metav1.ListOptions{ResourceVersion: rv, ShardSelector: shard, LabelSelector: label})
				if err != nil {
					return "", nil, true, err
				}
				pageRV, _, all, err := extractPage(obj)
				return pageRV, all, true, err
			}
			return "", nil, pages > 1, err
		}
		pageRV, next, pageItems, err := extractPage(obj)
		if err != nil {
			return "", nil, pages > 1, err
		}
		pages++
		if pages == 1 {
			listRV = pageRV
		}
		items = append(items, pageItems...)
		if next == "" {
			return listRV, items, pages > 1, nil
		}
		if next == opts.Continue {
			return "", nil, true, fmt.Errorf("reflector: list pagination did not advance (continue token %q repeated)", next)
		}
		// Later pages carry only the token, which pins the snapshot, and the
		// selectors, which the token does not record.
		opts = metav1.ListOptions{Limit: opts.Limit, Continue: next, ShardSelector: shard, LabelSelector: label}
		if ctx.Err() != nil {
			return "", nil, true, ctx.Err()
		}
	}
}

// extractPage reads one list response: its resourceVersion, its continue token
// and its items.
func extractPage(obj runtime.Object) (rv, next string, items []any, err error) {
	if obj == nil {
		return "", "", nil, errors.New("reflector: ListerWatcher returned a nil list")
	}
	lm, err := meta.ListAccessor(obj)
	if err != nil {
		return "", "", nil, fmt.Errorf("reflector: unable to understand list result %T: %w", obj, err)
	}
	objs, err := meta.ExtractList(obj)
	if err != nil {
		return "", "", nil, fmt.Errorf("reflector: unable to understand list result %T: %w", obj, err)
	}
	items = make([]any, len(objs))
	for i, o := range objs {
		items[i] = o
	}
	return lm.GetResourceVersion(), lm.GetContinue(), items, nil
}
