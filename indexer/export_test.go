package indexer

import "fmt"

// CheckInvariants exposes the unexported invariant checkers to the external
// tests: it accepts what NewStore, NewIndexer, NewUndeltaStore, NewExpirationStore,
// NewTTLStore, NewIntegerResourceVersionMutationCache and NewThreadSafeStore return.
func CheckInvariants(store any) error {
	switch s := store.(type) {
	case *cache:
		return s.checkInvariants()
	case *undeltaStore:
		return s.checkInvariants()
	case *expirationCache:
		return s.checkInvariants()
	case *MutationCache:
		return s.checkInvariants()
	case *threadSafeMap:
		return s.checkInvariants()
	}
	return fmt.Errorf("CheckInvariants: unexpected type %T", store)
}
