package fakeapi

// Shard selectors (KEP-5866, kube-apiserver's ShardedListAndWatch gate).
//
// A list or a watch may carry shardSelector, an expression naming hash
// ranges of the objects' uid (or namespace):
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
//
// The server answers with the objects whose FNV-1a-64 hash of that field is
// in one of the ranges; apimachinery's sharding.Selector does the hashing and
// internal/shardselector reads the expression. What fakeapi serves is what
// kube-apiserver v1.37.2 with the gate on was measured to serve:
//
//   - lists and watches are filtered, pages and continue tokens included; a
//     filtered list has no remainingItemCount, as with any selector;
//   - a list of a built-in kind carries metadata.shardInfo.selector, the
//     expression in canonical form (single quotes, one space after each
//     comma, no parentheses); a list of a custom resource carries none,
//     although it is filtered just the same;
//   - a bad expression (syntax, a field other than uid and namespace, a
//     bound that is not 16 hex digits, ...) is a 500 with no reason and the
//     message "invalid shard selector: <why>", on list and watch alike,
//     before any other check of the request;
//   - shardSelector="" is no selector at all; a blank one is refused.
//
// A uid never changes and neither does a namespace, so an object is in a
// shard for its whole life: a watch never sees one move in or out.
// Options.IgnoreShardSelector models a server without the gate: the
// parameter is dropped unread, every object comes back, and no list says
// shardInfo. That is what a sharded client's fallback is tested against.

// shardInfo is what a list's metadata.shardInfo.selector says: the canonical
// selector for a filtered list of a built-in kind, "" for none.
func shardInfo(r *resource, sel selector) string {
	if sel.shard.Empty() || !r.builtIn() {
		return ""
	}
	return sel.shard.String()
}

// builtIn reports whether r is one of the kinds kube-apiserver serves itself
// (fakeapi's model of it), as opposed to a custom resource.
func (r *resource) builtIn() bool {
	_, ok := builtinModels[r.gvk()]
	return ok
}
