package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Client talks to one API server. It is safe for concurrent use; make one per server
// and share it. It starts no goroutines of its own: only [ResourceClient.Watch] does,
// one per open watch, and that goroutine exits when the watch ends.
//
// client-go: rest.RESTClient and dynamic.DynamicClient.
type Client struct {
	base      *url.URL
	http      *http.Client
	token     *string // the bearer token, or nil: behind a pointer, so that fmt shows an address (redact.go)
	userAgent string
	scheme    *runtime.Scheme
	logger    *slog.Logger
	timeout   time.Duration // Config.Timeout, with the default applied; < 0: none
	maxBytes  int64         // Config.MaxResponseBytes; 0: no cap

	// kinds maps a schema.GroupVersionResource to the kind discovery says it
	// holds, or to "" once discovery has answered without one (resource_kind.go).
	// Only discovery fills it, never a list or watch answer.
	kinds sync.Map
	// listed maps a schema.GroupVersionResource to the item kind of its last
	// list accepted: what a watch expects when kinds and the scheme do not say.
	// Every list replaces it, and no list is checked against it.
	listed sync.Map
}

// New returns a Client for cfg. Objects whose kind is registered in scheme are decoded
// into their Go types; everything else (and everything when scheme is nil) into
// unstructured objects. It fails on an unusable server URL or TLS material.
func New(cfg *Config, scheme *runtime.Scheme) (*Client, error) {
	if cfg == nil {
		return nil, fmt.Errorf("client: nil config")
	}
	base, err := cfg.serverURL()
	if err != nil {
		return nil, err
	}
	shared, err := cfg.transport()
	if err != nil {
		return nil, err
	}
	var tr http.RoundTripper = shared
	if cfg.WrapTransport != nil {
		if tr = cfg.WrapTransport(shared); tr == nil {
			return nil, errors.New("client: Config.WrapTransport returned a nil RoundTripper")
		}
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("client: MaxResponseBytes %d must not be negative", cfg.MaxResponseBytes)
	}
	c := &Client{
		base: base,
		// No http.Client.Timeout: it would end watches. Each request gets its own
		// bound instead (attempt), and redirects are followed only where safe.
		http:      &http.Client{Transport: tr, CheckRedirect: checkRedirect},
		timeout:   timeout,
		maxBytes:  cfg.MaxResponseBytes,
		userAgent: cfg.UserAgent,
		scheme:    scheme,
		logger:    cfg.Logger,
	}
	if cfg.BearerToken != "" {
		token := cfg.BearerToken
		c.token = &token
	}
	if c.userAgent == "" {
		c.userAgent = "informerlab-client"
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return c, nil
}

// Resource returns a handle on one resource, e.g. {Version: "v1", Resource: "configmaps"}.
// The handle starts unscoped: all namespaces for a namespaced resource, or a
// cluster-scoped resource. Handles are cheap values and safe for concurrent use.
func (c *Client) Resource(gvr schema.GroupVersionResource) *ResourceClient {
	return &ResourceClient{client: c, gvr: gvr}
}

// ResourceClient reads and writes one resource over HTTP. Its method set is the same as
// fakeapi's in-process ResourceClient, and its List and Watch make it a
// reflector.ListerWatcher as it stands. It is safe for concurrent use.
//
// client-go: dynamic.ResourceInterface (and the typed clientsets' per-resource clients).
type ResourceClient struct {
	client    *Client
	gvr       schema.GroupVersionResource
	namespace string
}

// Namespace returns a handle scoped to namespace ns. "" means all namespaces, or a
// cluster-scoped resource.
func (r *ResourceClient) Namespace(ns string) *ResourceClient {
	scoped := *r
	scoped.namespace = ns
	return &scoped
}

// request is one API call, before it becomes an *http.Request.
type request struct {
	verb        string // API verb for logs and errors: list, watch, get, create, ...
	method      string
	namespace   string
	name        string // "" for the collection
	subresource string // "" or "status"
	query       url.Values
	body        []byte
	contentType string
}

// path builds /api/v1/... for the core group and /apis/group/version/... otherwise,
// with /namespaces/ns when namespaced. Segments are unescaped here; url.URL escapes
// them, and send has checked that none contains a slash.
func (r *ResourceClient) path(req *request) string {
	parts := []string{"api", r.gvr.Version}
	if r.gvr.Group != "" {
		parts = []string{"apis", r.gvr.Group, r.gvr.Version}
	}
	if req.namespace != "" {
		parts = append(parts, "namespaces", req.namespace)
	}
	parts = append(parts, r.gvr.Resource)
	if req.name != "" {
		parts = append(parts, req.name)
	}
	if req.subresource != "" {
		parts = append(parts, req.subresource)
	}
	return "/" + strings.Join(parts, "/")
}

// checkSegments rejects a resource or namespace that cannot be one path segment.
func (r *ResourceClient) checkSegments(req *request) error {
	if r.gvr.Version == "" || r.gvr.Resource == "" {
		return fmt.Errorf("client: %s: resource %q needs a version and a resource name", req.verb, r.gvr.String())
	}
	for what, seg := range map[string]string{"group": r.gvr.Group, "version": r.gvr.Version, "resource": r.gvr.Resource, "namespace": req.namespace} {
		if seg == "" {
			continue
		}
		if msgs := content.IsPathSegmentName(seg); len(msgs) > 0 {
			return fmt.Errorf("client: %s: invalid %s %q: %s", req.verb, what, seg, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// send performs req and returns the raw response; the caller closes its body.
func (r *ResourceClient) send(ctx context.Context, req *request) (*http.Response, error) {
	c := r.client
	if err := r.checkSegments(req); err != nil {
		return nil, err
	}
	u := *c.base
	u.Path = c.base.Path + r.path(req)
	u.RawQuery = req.query.Encode()

	for attempt := 0; ; attempt++ {
		resp, err := r.attempt(ctx, req, u.String())
		delay, again := retryDelay(req.method, resp, err)
		if err != nil {
			// The *url.Error keeps the chain, so net.IsConnectionRefused still sees ECONNREFUSED.
			err = fmt.Errorf("client: %s %s: %w", req.verb, r.gvr.Resource, err)
		}
		if !again || attempt == maxRetries {
			return resp, err
		}
		why := "the connection broke"
		if err == nil {
			why = resp.Status
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
		}
		c.logger.Info("client: retrying", "verb", req.verb, "url", redactURL(u.String()), "after", delay,
			"attempt", attempt+1, "of", maxRetries, "because", why)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("client: %s %s: gave up waiting to retry (%s): %w", req.verb, r.gvr.Resource, why, ctx.Err())
		}
	}
}

// attempt sends req once, under the client's Timeout: a watch until its
// response headers arrive, anything else until its body has been read and
// closed. A transport error is returned as it came, unwrapped, so retryDelay can
// classify it, unless it is the Timeout running out, which says so.
func (r *ResourceClient) attempt(ctx context.Context, req *request, target string) (*http.Response, error) {
	c := r.client
	ctx, cancel := context.WithCancelCause(ctx)
	var limit *time.Timer
	if c.timeout > 0 {
		expired := &timeoutError{verb: req.verb, resource: r.gvr.Resource, after: c.timeout, headers: req.verb == "watch"}
		limit = time.AfterFunc(c.timeout, func() { cancel(expired) })
	}
	release := func() {
		if limit != nil {
			limit.Stop()
		}
		cancel(nil)
	}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hreq, err := http.NewRequestWithContext(ctx, req.method, target, body)
	if err != nil {
		release()
		return nil, err
	}
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", c.userAgent)
	if req.contentType != "" {
		hreq.Header.Set("Content-Type", req.contentType)
	}
	if c.token != nil {
		hreq.Header.Set("Authorization", "Bearer "+*c.token)
	}

	start := time.Now()
	resp, err := c.http.Do(hreq)
	if req.verb == "watch" && limit != nil {
		limit.Stop() // the headers are here (or never will be): the watch runs unbounded
	}
	if err != nil {
		var expired *timeoutError
		if errors.As(context.Cause(ctx), &expired) {
			err = expired
		}
		err = redactError(err)
		release()
		c.logger.Debug("client: request failed", "verb", req.verb, "method", req.method, "url", redactURL(target), "err", err)
		return nil, err
	}
	c.logger.Debug("client: request", "verb", req.verb, "method", req.method, "url", redactURL(target),
		"status", resp.StatusCode, "duration", time.Since(start))
	bounded := &boundedBody{body: resp.Body, ctx: ctx, release: release}
	if req.verb != "watch" && c.maxBytes > 0 {
		bounded.left, bounded.max = c.maxBytes, c.maxBytes
		bounded.what = req.verb + " " + r.gvr.Resource
	}
	resp.Body = bounded
	return resp, nil
}

// do performs req and returns the body of a 2xx response, or the server's error as an
// *apierrors.StatusError.
func (r *ResourceClient) do(ctx context.Context, req *request) ([]byte, error) {
	resp, err := r.send(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, r.readStatusError(resp, req)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, r.readError(req, err)
	}
	return data, nil
}

// readError describes a failure to read a response body.
func (r *ResourceClient) readError(req *request, err error) error {
	var expired *timeoutError
	var tooLarge *tooLargeError
	switch {
	case errors.As(err, &expired):
		return expired
	case errors.As(err, &tooLarge):
		return tooLarge
	}
	return fmt.Errorf("client: %s %s: reading response: %w", req.verb, r.gvr.Resource, err)
}

// readStatusError reads (the first MiB of) a non-2xx response and turns it into
// an error.
func (r *ResourceClient) readStatusError(resp *http.Response, req *request) error {
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		why := "only reads follow redirects: a write re-sent as a GET would seem to succeed and write nothing"
		if req.method == http.MethodGet {
			why = "a redirect to another scheme, host or port, or past ten, is not followed: credentials stay with the server they are for"
		}
		return fmt.Errorf("client: %s %s: the server answered %s (to %q); %s",
			req.verb, r.gvr.Resource, resp.Status, redactURL(resp.Header.Get("Location")), why)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return r.statusError(resp, body, req)
}
