package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/internal/kubejson"
)

// Discovery: what a server serves, before asking it for any resource.
//
//	GET /api                     APIVersions: the core group's versions (v1)
//	GET /apis                    APIGroupList: every other group and its versions
//	GET /api/v1, /apis/{g}/{v}   APIResourceList: the resources of one group version
//
// Every Kubernetes API server answers /api, to anyone allowed to use it at
// all. A server that answers it with 404, or with anything but an
// APIVersions object (an HTML page, some other JSON), is not one: the
// discovery calls then fail with an error wrapping [ErrNotAPIServer], so a
// caller can say so instead of reporting every resource as missing.

// ErrNotAPIServer is wrapped by the discovery calls' errors when the server
// does not answer discovery as a Kubernetes API server does.
var ErrNotAPIServer = errors.New("client: not a Kubernetes API server")

// ServerGroups returns the API groups the server serves, the core group
// (name "") first, as /api and /apis list them.
//
// client-go: discovery.DiscoveryClient.ServerGroups.
func (c *Client) ServerGroups(ctx context.Context) (*metav1.APIGroupList, error) {
	var core metav1.APIVersions
	if err := c.discover(ctx, "/api", "APIVersions", &core); err != nil {
		return nil, err
	}
	if len(core.Versions) == 0 {
		return nil, fmt.Errorf("%w: GET /api lists no versions", ErrNotAPIServer)
	}
	var groups metav1.APIGroupList
	if err := c.discover(ctx, "/apis", "APIGroupList", &groups); err != nil {
		return nil, err
	}
	coreGroup := metav1.APIGroup{Name: ""}
	for _, v := range core.Versions {
		coreGroup.Versions = append(coreGroup.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
	}
	coreGroup.PreferredVersion = coreGroup.Versions[0]
	groups.Groups = append([]metav1.APIGroup{coreGroup}, groups.Groups...)
	return &groups, nil
}

// ServerResourcesForGroupVersion returns the resources of one group version
// (subresources such as "foos/status" included, as the server lists them).
// A group version the server does not serve is a 404 NotFound error.
//
// client-go: discovery.DiscoveryClient.ServerResourcesForGroupVersion.
func (c *Client) ServerResourcesForGroupVersion(ctx context.Context, gv schema.GroupVersion) (*metav1.APIResourceList, error) {
	if gv.Version == "" {
		return nil, fmt.Errorf("client: discovery: group version %q has no version", gv.String())
	}
	path := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	var list metav1.APIResourceList
	if err := c.discover(ctx, path, "APIResourceList", &list); err != nil {
		return nil, err
	}
	return &list, nil
}

// discover GETs a discovery document at path (below the server URL's own
// path) and decodes it into out, which must be of kind. Config.Timeout bounds
// it as it bounds any request.
func (c *Client) discover(ctx context.Context, path, kind string, out any) error {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	u := *c.base
	u.Path = strings.TrimSuffix(c.base.Path, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("client: discovery %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if c.token != nil {
		req.Header.Set("Authorization", "Bearer "+*c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("client: discovery %s: %w", path, redactError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxWatchEventBytes))
	if err != nil {
		return fmt.Errorf("client: discovery %s: reading response: %w", path, err)
	}
	c.logger.Debug("client: request", "verb", "discovery", "method", http.MethodGet, "url", redactURL(u.String()), "status", resp.StatusCode)

	var head metav1.TypeMeta
	isJSON := kubejson.Unmarshal(body, &head) == nil
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var st metav1.Status
		if isJSON && head.Kind == "Status" && kubejson.Unmarshal(body, &st) == nil {
			if st.Code == 0 {
				st.Code = int32(resp.StatusCode)
			}
			err = &apierrors.StatusError{ErrStatus: st}
		} else {
			err = apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodGet, schema.GroupResource{}, "", snippet(body), 0, false)
		}
		if path == "/api" && resp.StatusCode == http.StatusNotFound {
			// Every API server serves /api.
			return fmt.Errorf("%w: GET %s answered %d: %w", ErrNotAPIServer, redactURL(u.String()), resp.StatusCode, err)
		}
		return err
	}
	if !isJSON || head.Kind != kind {
		got := "a body that is not JSON"
		if isJSON {
			got = fmt.Sprintf("JSON of kind %q", head.Kind)
		}
		return fmt.Errorf("%w: GET %s answered %d with %s, not %s: %s", ErrNotAPIServer, redactURL(u.String()), resp.StatusCode, got, kind, snippet(body))
	}
	if err := kubejson.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%w: GET %s: malformed %s: %w", ErrNotAPIServer, redactURL(u.String()), kind, err)
	}
	return nil
}

// snippet is the start of a response body, on one line, for an error
// message.
func snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
