package fakeapi

import (
	"fmt"
	"net/http"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Resource requests over HTTP:
//
//	{prefix}/[watch/][namespaces/{ns}/]{resource}[/{name}[/status]]
//
// with {prefix} /api/v1 or /apis/{group}/{version}. GET lists (or watches
// with ?watch=true or the /watch/ prefix) or gets; POST creates; PUT
// updates; PATCH patches; DELETE deletes one object or, without a name,
// every object the list options select.

type requestInfo struct {
	res         *resource
	ns, name    string
	subresource string
	watchPath   bool
	silent      bool
}

// serveAPI serves /api... and /apis...: discovery, or a resource request.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, segs []string, silent bool) {
	var gv schema.GroupVersion
	var rest []string
	switch {
	case segs[0] == "api" && len(segs) == 1:
		s.serveDiscovery(w, r, func() (any, error) { return s.apiVersions(r), nil })
		return
	case segs[0] == "apis" && len(segs) == 1:
		s.serveDiscovery(w, r, func() (any, error) { return s.apiGroupList(), nil })
		return
	case segs[0] == "apis" && len(segs) == 2:
		s.serveDiscovery(w, r, func() (any, error) { return s.apiGroup(segs[1]) })
		return
	case segs[0] == "api":
		gv, rest = schema.GroupVersion{Version: segs[1]}, segs[2:]
	default:
		gv, rest = schema.GroupVersion{Group: segs[1], Version: segs[2]}, segs[3:]
	}
	if len(rest) == 0 {
		s.serveDiscovery(w, r, func() (any, error) { return s.apiResourceList(gv) })
		return
	}
	ri, err := s.parseResourcePath(gv, rest)
	if err != nil {
		writeError(w, err)
		return
	}
	ri.silent = silent
	s.serveResource(w, r, ri)
}

func (s *Server) parseResourcePath(gv schema.GroupVersion, rest []string) (requestInfo, error) {
	var ri requestInfo
	if rest[0] == "watch" {
		ri.watchPath, rest = true, rest[1:]
	}
	if len(rest) == 0 {
		return ri, errNotFoundPath()
	}
	s.mu.Lock()
	if rest[0] == "namespaces" && len(rest) >= 3 {
		if res, ok := s.resources[gv.WithResource(rest[2])]; ok && res.info.Namespaced {
			ri.ns, rest = rest[1], rest[2:]
		}
	}
	res, ok := s.resources[gv.WithResource(rest[0])]
	s.mu.Unlock()
	if !ok || len(rest) > 3 || (ri.ns != "" && !res.info.Namespaced) || (ri.ns == "" && len(rest) > 1 && res.info.Namespaced) {
		return ri, errNotFoundPath()
	}
	ri.res = res
	if len(rest) > 1 {
		ri.name = rest[1]
	}
	if len(rest) > 2 {
		ri.subresource = rest[2]
		if ri.subresource != "status" || !res.info.HasStatus || ri.watchPath {
			return ri, errNotFoundPath()
		}
	}
	return ri, nil
}

func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, ri requestInfo) {
	var err error
	switch r.Method {
	case http.MethodGet:
		err = s.serveGet(w, r, ri)
	case http.MethodPost:
		if ri.name != "" || ri.watchPath {
			err = errMethod(r.Method)
			break
		}
		err = s.serveWrite(w, r, ri, "create")
	case http.MethodPut:
		if ri.name == "" || ri.watchPath {
			err = errMethod(r.Method)
			break
		}
		err = s.serveWrite(w, r, ri, "update")
	case http.MethodPatch:
		if ri.name == "" || ri.watchPath {
			err = errMethod(r.Method)
			break
		}
		err = s.servePatch(w, r, ri)
	case http.MethodDelete:
		if ri.watchPath || ri.subresource != "" {
			err = errMethod(r.Method)
			break
		}
		err = s.serveDelete(w, r, ri)
	default:
		err = errMethod(r.Method)
	}
	if err != nil {
		writeError(w, err)
	}
}

// queryCodec decodes query parameters into the meta/v1 option types the way
// the real server does (booleans: anything but "", "0" and "false" is true).
// It is built once and never modified.
var queryCodec = func() runtime.ParameterCodec {
	sc := runtime.NewScheme()
	metav1.AddToGroupVersion(sc, schema.GroupVersion{Version: "v1"})
	return runtime.NewParameterCodec(sc)
}()

func decodeQuery(q url.Values, into runtime.Object) error {
	if err := queryCodec.DecodeParameters(q, schema.GroupVersion{Version: "v1"}, into); err != nil {
		return apierrors.NewBadRequest(err.Error()) // the real server's words: strconv.ParseInt: parsing ...
	}
	return nil
}

func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, ri requestInfo) error {
	table, err := wantsTable(r.Header.Get("Accept"), true)
	if err != nil {
		return err
	}
	include, err := includeObjectPolicy(r.URL.Query())
	if err != nil {
		return err
	}
	var opts metav1.ListOptions
	if err := decodeQuery(r.URL.Query(), &opts); err != nil {
		return err
	}
	if ri.watchPath || opts.Watch {
		if ri.name != "" {
			sel := "metadata.name=" + ri.name
			if opts.FieldSelector != "" {
				sel = opts.FieldSelector + "," + sel
			}
			opts.FieldSelector = sel
		}
		return s.serveWatch(w, r, ri, opts, table, include)
	}
	if ri.name != "" {
		if err := s.begin(r.Context(), "get"); err != nil {
			return err
		}
		o, err := s.get(ri.res, ri.ns, ri.name)
		if err != nil {
			return err
		}
		if table {
			writeJSON(w, http.StatusOK, s.table(ri.res, []*unstructured.Unstructured{o}, o.GetResourceVersion(), "", nil, include, true))
			return nil
		}
		writeJSON(w, http.StatusOK, o.Object)
		return nil
	}
	if err := s.begin(r.Context(), "list"); err != nil {
		return err
	}
	lr, err := s.list(ri.res, ri.ns, opts)
	if err != nil {
		return err
	}
	if table {
		writeJSON(w, http.StatusOK, s.table(ri.res, lr.items, formatRV(lr.rv), lr.cont, lr.remaining, include, true))
		return nil
	}
	writeJSON(w, http.StatusOK, wireList(ri.res, lr))
	return nil
}

// wireList is a list as the real server sends it: items without kind and
// apiVersion.
func wireList(r *resource, lr *listResult) map[string]any {
	items := make([]any, 0, len(lr.items))
	for _, it := range lr.items {
		m := make(map[string]any, len(it.Object))
		for k, v := range it.Object {
			if k != "kind" && k != "apiVersion" {
				m[k] = v
			}
		}
		items = append(items, m)
	}
	md := map[string]any{"resourceVersion": formatRV(lr.rv)}
	if lr.cont != "" {
		md["continue"] = lr.cont
	}
	if lr.remaining != nil {
		md["remainingItemCount"] = *lr.remaining
	}
	if lr.shardInfo != "" {
		md["shardInfo"] = map[string]any{"selector": lr.shardInfo}
	}
	return map[string]any{"kind": r.info.ListKind, "apiVersion": r.apiVersion(), "metadata": md, "items": items}
}

// serveWrite handles create (POST) and update (PUT, also /status).
func (s *Server) serveWrite(w http.ResponseWriter, r *http.Request, ri requestInfo, verb string) error {
	if _, err := wantsTable(r.Header.Get("Accept"), false); err != nil {
		return err
	}
	if _, err := bodyMediaType(r, false); err != nil {
		return err
	}
	var dryRun []string
	var fieldValidation, optionsKind string
	if verb == "create" {
		var opts metav1.CreateOptions
		if err := decodeQuery(r.URL.Query(), &opts); err != nil {
			return err
		}
		dryRun, fieldValidation, optionsKind = opts.DryRun, opts.FieldValidation, "CreateOptions"
	} else {
		var opts metav1.UpdateOptions
		if err := decodeQuery(r.URL.Query(), &opts); err != nil {
			return err
		}
		dryRun, fieldValidation, optionsKind = opts.DryRun, opts.FieldValidation, "UpdateOptions"
	}
	if err := validateDirective(optionsKind, fieldValidation); err != nil {
		return err
	}
	if err := checkDryRun(dryRun); err != nil {
		return err
	}
	data, err := readBody(r)
	if err != nil {
		return err
	}
	if err := s.begin(r.Context(), verb); err != nil {
		return err
	}
	u, err := decodeObject(data)
	if err != nil {
		return err
	}
	fc := &fieldCheck{directive: fieldValidation}
	if verb == "create" {
		o, err := s.create(ri.res, ri.ns, u, ri.silent, fc)
		if err != nil {
			return err
		}
		writeWarnings(w, fc.warnings)
		writeJSON(w, http.StatusCreated, o.Object)
		return nil
	}
	if u.GetName() != ri.name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", u.GetName(), ri.name))
	}
	o, err := s.update(ri.res, ri.ns, u, ri.subresource == "status", ri.silent, fc)
	if err != nil {
		return err
	}
	writeWarnings(w, fc.warnings)
	writeJSON(w, http.StatusOK, o.Object)
	return nil
}

func (s *Server) servePatch(w http.ResponseWriter, r *http.Request, ri requestInfo) error {
	if _, err := wantsTable(r.Header.Get("Accept"), false); err != nil {
		return err
	}
	mt, err := bodyMediaType(r, true)
	if err != nil {
		return err
	}
	var opts metav1.PatchOptions
	if err := decodeQuery(r.URL.Query(), &opts); err != nil {
		return err
	}
	if err := validateDirective("PatchOptions", opts.FieldValidation); err != nil {
		return err
	}
	if err := checkDryRun(opts.DryRun); err != nil {
		return err
	}
	data, err := readBody(r)
	if err != nil {
		return err
	}
	if err := s.begin(r.Context(), "patch"); err != nil {
		return err
	}
	fc := &fieldCheck{directive: opts.FieldValidation}
	o, err := s.patch(ri.res, ri.ns, ri.name, types.PatchType(mt), data, ri.subresource == "status", ri.silent, fc)
	if err != nil {
		return err
	}
	writeWarnings(w, fc.warnings)
	writeJSON(w, http.StatusOK, o.Object)
	return nil
}

func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request, ri requestInfo) error {
	if _, err := wantsTable(r.Header.Get("Accept"), false); err != nil {
		return err
	}
	var opts metav1.DeleteOptions
	if err := decodeQuery(r.URL.Query(), &opts); err != nil {
		return err
	}
	data, err := readBody(r)
	if err != nil {
		return err
	}
	if len(data) > 0 {
		if _, err := bodyMediaType(r, false); err != nil {
			return err
		}
		if err := utiljson.Unmarshal(data, &opts); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("fakeapi: invalid DeleteOptions body: %v", err))
		}
	}
	if err := checkDryRun(opts.DryRun); err != nil {
		return err
	}
	if err := s.begin(r.Context(), "delete"); err != nil {
		return err
	}
	if ri.name == "" {
		return s.serveDeleteCollection(w, r, ri, opts)
	}
	o, gone, err := s.delete(ri.res, ri.ns, ri.name, opts, ri.silent)
	if err != nil {
		return err
	}
	if !gone {
		// Finalizers pending: the marked object, with 200 as on the real
		// server, which answers 202 only when orphanDependents=false asked
		// for a cascading deletion (handlers/delete.go).
		code := http.StatusOK
		//lint:ignore SA1019 the real server still honours the deprecated field
		if opts.OrphanDependents != nil && !*opts.OrphanDependents {
			code = http.StatusAccepted
		}
		writeJSON(w, code, o.Object)
		return nil
	}
	writeJSON(w, http.StatusOK, metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: ri.name, Group: ri.res.info.GVR.Group, Kind: ri.res.info.GVR.Resource, UID: o.GetUID()},
	})
	return nil
}

// serveDeleteCollection deletes every object the list options select and
// returns the list of what was deleted, like the real server.
func (s *Server) serveDeleteCollection(w http.ResponseWriter, r *http.Request, ri requestInfo, opts metav1.DeleteOptions) error {
	var lo metav1.ListOptions
	if err := decodeQuery(r.URL.Query(), &lo); err != nil {
		return err
	}
	lo.Limit, lo.Continue = 0, ""
	lr, err := s.list(ri.res, ri.ns, lo)
	if err != nil {
		return err
	}
	var deleted []*unstructured.Unstructured
	for _, it := range lr.items {
		o, _, err := s.delete(ri.res, it.GetNamespace(), it.GetName(), opts, ri.silent)
		if apierrors.IsNotFound(err) {
			continue // collected meanwhile
		}
		if err != nil {
			return err
		}
		deleted = append(deleted, o)
	}
	writeJSON(w, http.StatusOK, wireList(ri.res, &listResult{items: deleted, rv: s.CurrentResourceVersion()}))
	return nil
}
