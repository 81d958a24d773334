package reflector

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// errNoAnswer ends a watch request that got no answer at all, not even
// response headers, within IdleTimeout. To the state machine a watch that
// never starts is like a watch on which nothing arrives: re-watch.
var errNoAnswer = errors.New("reflector: the watch request got no answer within the idle timeout")

// openWatch opens a watch with the idle clock already running. A watch can go
// silent before it starts: a frozen proxy or a half-dead server may accept the
// request and never send the response headers, and then the ListerWatcher's
// Watch itself never returns. So the request runs under a context that is
// cancelled once IdleTimeout passes without an answer; a Watch that returns in
// time keeps that context for its whole life, and Stop releases it.
//
// It returns errNoAnswer when the clock ran out first; any watch that came back
// late has been stopped.
func (r *Reflector) openWatch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r.metrics.watch()
	if r.opts.IdleTimeout <= 0 {
		return r.lw.Watch(ctx, opts)
	}
	wctx, cancel := context.WithCancel(ctx)
	noAnswer := time.AfterFunc(r.opts.IdleTimeout, cancel)
	w, err := r.lw.Watch(wctx, opts)
	if !noAnswer.Stop() && ctx.Err() == nil {
		if w != nil {
			w.Stop()
		}
		cancel()
		return nil, errNoAnswer
	}
	if err != nil || w == nil {
		cancel()
		return w, err
	}
	return &cancelOnStop{Interface: w, cancel: cancel}, nil
}

// cancelOnStop is a watch whose Stop also releases the context it was opened
// with.
type cancelOnStop struct {
	watch.Interface
	cancel context.CancelFunc
}

func (w *cancelOnStop) Stop() {
	w.Interface.Stop()
	w.cancel()
}
