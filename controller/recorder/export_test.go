package recorder

// CheckInvariants checks the broadcaster's invariants.
func (b *EventBroadcaster) CheckInvariants() error { return b.checkInvariants() }
