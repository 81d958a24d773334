package informer

// CheckInvariants lets the external tests check an informer's invariants.
func CheckInvariants(inf SharedIndexInformer) error {
	s, ok := inf.(*sharedIndexInformer)
	if !ok {
		return errorf("CheckInvariants: %T is not this package's informer", inf)
	}
	return s.checkInvariants()
}

// HasMutationDetector reports whether the informer's cache mutation detector is on.
func HasMutationDetector(inf SharedIndexInformer) bool {
	return inf.(*sharedIndexInformer).detector != nil
}
