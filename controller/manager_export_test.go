package controller

import "net/http"

// HealthHandler exposes the probe handler to tests without a socket.
func (m *Manager) HealthHandler() http.Handler { return m.healthHandler() }

// CheckInvariants checks the client's cache trackers.
func (c *Client) CheckInvariants() error { return c.checkInvariants() }
