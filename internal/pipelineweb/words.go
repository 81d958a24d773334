package pipelineweb

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/informerlab/informerlab/indexer"
)

// The words the page and the terminal demo both use for what the informer
// trace and the watch report, so that the two always say the same thing.

// ObjectKey is obj's cache key, "namespace/name" (step 5), or "<unknown>"
// for something that is not an object.
func ObjectKey(obj any) string {
	key, err := indexer.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return "<unknown>"
	}
	return key
}

// ObjectRV is obj's resourceVersion, or "?" for something that is not an object.
func ObjectRV(obj any) string {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return "?"
	}
	return acc.GetResourceVersion()
}

// DeltaType names the delta the informer trace's op queues (step 2):
// "add" is an Added delta, "update" Updated, "delete" Deleted.
func DeltaType(op string) string {
	switch op {
	case "add":
		return "Added"
	case "update":
		return "Updated"
	case "delete":
		return "Deleted"
	}
	return op
}

// CacheVerb says what the trace's op did to the cache (steps 4 and 5).
func CacheVerb(op string) string {
	switch op {
	case "add":
		return "added"
	case "update":
		return "updated"
	case "delete":
		return "deleted"
	}
	return op
}
