package informer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informerlab/informerlab/reflector"
)

// MetricsProvider creates the metrics an informer records, in the style of
// the workqueue's: one method per metric, each called once, with the
// informer's name (see [WithName]) and, for a handler's metrics, the
// handler's name (its type, or for [ResourceEventHandlerFuncs] the package
// and functions it was built from, as client-go names handlers). The
// Reflector's metrics come from the embedded [reflector.MetricsProvider],
// under the informer's name. Implementations typically wrap Prometheus
// collectors; the informer calls them while holding its own locks, so they
// must be fast, must not call back into the informer, and must be safe for
// concurrent use. Two handlers with the same name get metrics of the same
// name; the provider decides whether they share them.
//
// client-go: tools/cache.InformerMetricsProvider (informer_metrics.go) and
// tools/cache.MetricsProvider (reflector_metrics.go).
type MetricsProvider interface {
	reflector.MetricsProvider
	// NewHandlerEventsMetric: notifications handed to the handler (counter).
	NewHandlerEventsMetric(informer, handler string) reflector.CounterMetric
	// NewHandlerBacklogMetric: notifications waiting in the handler's
	// buffer, the one being handled not counted: how far behind it is (gauge).
	NewHandlerBacklogMetric(informer, handler string) reflector.GaugeMetric
	// NewHandlerPanicsMetric: notifications the handler panicked on (counter).
	NewHandlerPanicsMetric(informer, handler string) reflector.CounterMetric
}

// WithMetricsProvider makes the informer record its handlers' events,
// backlogs and panics, and its Reflector's list and watch requests,
// relists, watch restarts and last resourceVersion, through p. A nil p,
// like leaving the option out, records nothing and costs nothing. A
// MetricsProvider given in WithReflectorOptions is replaced by p.
func WithMetricsProvider(p MetricsProvider) Option {
	return func(o *options) { o.metrics = p }
}

// WithName names the informer: the name its metrics are recorded under, and
// its Reflector's name in logs unless WithReflectorOptions gives one. The
// default is the Reflector's name if WithReflectorOptions gives one, else
// the kind of object watched ("/v1, Kind=ConfigMap" for an Unstructured,
// the Go type otherwise).
//
// WithName and [WithIdentifier] both name the informer; the later one given
// wins.
func WithName(name string) Option {
	return func(o *options) { o.name, o.identifier = name, nil }
}

// WithIdentifier names the informer by its identity under a process-wide
// [InformerName]: id.String(), the name and the resource, so that two
// informers of one InformerName record metrics under different names. An
// identity with no name leaves the informer its default name. If id is not
// reserved when the informer is built (the zero value, a second informer of
// the same name and resource, or one whose InformerName was released), the
// informer records no metrics, as client-go publishes none for it: a
// MetricsProvider given with it is not used, and the informer logs so.
//
// client-go: tools/cache.SharedIndexInformerOptions.Identifier.
func WithIdentifier(id InformerNameAndResource) Option {
	return func(o *options) {
		o.identifier = &id
		o.name = ""
		if id.Name() != "" {
			o.name = id.String()
		}
	}
}

// informerName is the name WithName documents.
func informerName(o options, exampleObject runtime.Object) string {
	switch {
	case o.name != "":
		return o.name
	case o.reflector.Name != "":
		return o.reflector.Name
	case exampleObject == nil:
		return "informer"
	}
	if u, ok := exampleObject.(*unstructured.Unstructured); ok && u.GetKind() != "" {
		return u.GroupVersionKind().String()
	}
	return fmt.Sprintf("%T", exampleObject)
}

// handlerMetrics records one handler's metrics. A nil *handlerMetrics
// records nothing.
type handlerMetrics struct {
	events, panics reflector.CounterMetric
	backlog        reflector.GaugeMetric
}

func newHandlerMetrics(p MetricsProvider, informer string, handler ResourceEventHandler) *handlerMetrics {
	if p == nil {
		return nil
	}
	name := nameForHandler(handler)
	return &handlerMetrics{
		events:  p.NewHandlerEventsMetric(informer, name),
		panics:  p.NewHandlerPanicsMetric(informer, name),
		backlog: p.NewHandlerBacklogMetric(informer, name),
	}
}

func (m *handlerMetrics) event() {
	if m != nil {
		m.events.Inc()
	}
}

func (m *handlerMetrics) panicked() {
	if m != nil {
		m.panics.Inc()
	}
}

func (m *handlerMetrics) setBacklog(n int) {
	if m != nil {
		m.backlog.Set(float64(n))
	}
}
