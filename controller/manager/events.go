package manager

import (
	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/recorder"
)

// GetEventRecorderFor returns a recorder whose Events name name as their
// source component (`kubectl get events` shows it). All of a Manager's
// recorders share one [recorder.EventBroadcaster], which the Manager runs (without
// needing leadership) and flushes on shutdown after its controllers have
// stopped. Without Options.NewClient, Events are discarded.
//
// client-go: controller-runtime pkg/manager.Manager.GetEventRecorderFor.
func (m *Manager) GetEventRecorderFor(name string) recorder.EventRecorder {
	m.mu.Lock()
	b, created := m.events, false
	if b == nil && m.newClient != nil {
		b, _ = recorder.NewEventBroadcaster(recorder.EventBroadcasterOptions{NewClient: m.newClient, Scheme: m.scheme, Logger: m.logger})
		m.events, created = b, true
	}
	m.mu.Unlock()
	if b == nil {
		m.logger.Warn("events are discarded: ManagerOptions.NewClient is not set", "source", name)
		return discardRecorder{}
	}
	if created {
		if err := m.Add(b); err != nil {
			m.logger.Error("events will not be written", "err", err)
		}
	}
	return b.NewRecorder(name)
}

type discardRecorder struct{}

func (discardRecorder) Event(controller.Object, string, string, string)          {}
func (discardRecorder) Eventf(controller.Object, string, string, string, ...any) {}
