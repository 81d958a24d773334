package manager

// CheckInvariants checks the client's cache trackers.
func (c *Client) CheckInvariants() error { return c.checkInvariants() }
