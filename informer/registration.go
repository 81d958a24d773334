package informer

import (
	"fmt"
	"log/slog"
	"time"
)

// ResourceEventHandlerRegistration is the handle AddEventHandler returns for
// one handler. Pass it to RemoveEventHandler to unregister the handler, and
// to WaitForCacheSync to wait until the handler has seen the initial list.
//
// client-go: tools/cache.ResourceEventHandlerRegistration.
type ResourceEventHandlerRegistration interface {
	// HasSynced reports whether the informer has synced and this handler has
	// returned from every OnAdd of the initial list (or, for a handler added
	// to a running informer, of the replay of the cache). Done is closed
	// when it becomes true; it never reverts. Name names the handler.
	DoneChecker
	// HasSyncedChecker returns the registration itself, which is a
	// DoneChecker; it is here for code written against client-go.
	HasSyncedChecker() DoneChecker

	// Backlog returns how many notifications wait in the handler's buffer,
	// not counting the one being handled: how far behind the handler is.
	Backlog() int

	// Panics returns how many notifications the handler panicked on (each
	// was logged and skipped).
	Panics() int64
}

var _ ResourceEventHandlerRegistration = (*processorListener)(nil)

// HandlerOptions are a handler's own settings, for
// [SharedIndexInformer.AddEventHandlerWithOptions]. The zero value means the
// informer's defaults.
//
// client-go: tools/cache.HandlerOptions.
type HandlerOptions struct {
	// Logger receives the handler's log lines: its panics. nil means the
	// informer's logger.
	Logger *slog.Logger

	// ResyncPeriod is the handler's resync period, as
	// AddEventHandlerWithResyncPeriod takes it; nil means the informer's
	// default (what AddEventHandler asks for).
	ResyncPeriod *time.Duration
}

func (s *sharedIndexInformer) AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{})
}

func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{ResyncPeriod: &resyncPeriod})
}

func (s *sharedIndexInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, opts HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errNilHandler
	}
	resyncPeriod := s.defaultEventHandlerResyncPeriod
	if opts.ResyncPeriod != nil {
		resyncPeriod = *opts.ResyncPeriod
	}
	logger := s.logger
	if opts.Logger != nil {
		logger = opts.Logger
	}
	if resyncPeriod < 0 {
		return nil, errorf("negative resync period %v", resyncPeriod)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initErr != nil {
		return nil, s.initErr
	}
	if s.stopped {
		return nil, errHandlerNotAdded(handler)
	}

	if resyncPeriod > 0 {
		if resyncPeriod < minimumResyncPeriod {
			s.logger.Warn("informer: resync period too short; raised to the minimum",
				"requested", resyncPeriod, "minimum", minimumResyncPeriod)
			resyncPeriod = minimumResyncPeriod
		}
		if resyncPeriod < s.resyncCheckPeriod {
			if s.started {
				s.logger.Warn("informer: resync period shorter than the running informer's resync check period; raised to it",
					"requested", resyncPeriod, "checkPeriod", s.resyncCheckPeriod)
				resyncPeriod = s.resyncCheckPeriod
			} else {
				// Not running yet: check more often, and recompute everyone's period.
				s.resyncCheckPeriod = resyncPeriod
				s.processor.resyncCheckPeriodChanged(resyncPeriod)
			}
		}
	}
	l := newProcessorListener(handler, resyncPeriod,
		determineResyncPeriod(s.logger, resyncPeriod, s.resyncCheckPeriod), time.Now(), logger)
	l.metrics = newHandlerMetrics(s.opts.metrics, s.name, handler)

	if !s.started {
		// The cache is empty: nothing to replay.
		if err := s.processor.addListener(l); err != nil {
			return nil, errHandlerNotAdded(handler)
		}
		return l, nil
	}

	// A late joiner: with no Deltas being applied, queue the whole cache for
	// it as initial-list adds, then register it, so it sees every object
	// exactly once and then every later change.
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	for _, obj := range s.indexer.List() {
		l.add(notification{kind: addNotification, newObj: obj, isInInitialList: true})
	}
	if err := s.processor.addListener(l); err != nil {
		return nil, errHandlerNotAdded(handler)
	}
	return l, nil
}

func (s *sharedIndexInformer) RemoveEventHandler(handle ResourceEventHandlerRegistration) error {
	l, ok := handle.(*processorListener)
	if !ok {
		return errorf("RemoveEventHandler: %T is not a registration returned by AddEventHandler", handle)
	}
	s.processor.removeListener(l)
	return nil
}

// ShutDownEventHandler removes a handler, as RemoveEventHandler does, and
// then waits until the handler will never be called again: a call in
// progress has returned and the handler's goroutine has exited. After it
// returns, whatever the handler writes to may be closed or reused.
//
// It may be called more than once, and on a stopped informer. It must not be
// called from inside the handler itself: it would wait for itself forever.
// A registration of another informer is an error.
//
// client-go: tools/cache.ShutDownEventHandler.
func ShutDownEventHandler(inf SharedIndexInformer, handle ResourceEventHandlerRegistration) error {
	s, ok := inf.(*sharedIndexInformer)
	if !ok {
		return errorf("ShutDownEventHandler: %T is not an informer NewSharedIndexInformer returned", inf)
	}
	l, ok := handle.(*processorListener)
	if !ok {
		return errorf("ShutDownEventHandler: %T is not a registration returned by AddEventHandler", handle)
	}
	if l.owner != s.processor {
		return errorf("ShutDownEventHandler: the registration belongs to another informer")
	}
	s.processor.removeListener(l)
	if l.started.Load() {
		<-l.exited
	}
	return nil
}

// errHandlerNotAdded is the error of adding a handler to an informer that
// has stopped, or whose handlers are being stopped as Run returns. It is
// worded as client-go's, which programs ported from client-go match on.
func errHandlerNotAdded(handler ResourceEventHandler) error {
	return fmt.Errorf("informer: handler %v was not added to shared informer because it has stopped already", handler)
}
