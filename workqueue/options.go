package workqueue

// Option configures a queue built by [New], [NewDelaying], [NewRateLimiting] or
// [NewPriorityQueue]. Options are the one way to configure a queue; without any, a
// queue has no name and records no metrics.
//
// client-go: util/workqueue.TypedQueueConfig (Name, MetricsProvider).
type Option func(*options)

// options is what the Option functions fill in.
type options struct {
	name    string
	metrics MetricsProvider
}

// WithName names the queue. The name is handed to the [MetricsProvider] for every
// metric it creates, so that several queues can be told apart; it has no other use.
func WithName(name string) Option {
	return func(o *options) { o.name = name }
}

// WithMetricsProvider makes the queue record client-go's seven workqueue metrics
// through p (see [MetricsProvider]). A nil p, like leaving the option out, records
// nothing and costs nothing.
func WithMetricsProvider(p MetricsProvider) Option {
	return func(o *options) { o.metrics = p }
}

func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}
