package fakeapi

import (
	"net/http"
	"runtime"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// Discovery in the legacy (unaggregated) shapes. kubectl asks for aggregated
// discovery first (Accept ...;as=APIGroupDiscoveryList,...,application/json)
// and falls back to these when the answer is plain application/json.

// serveDiscovery answers a discovery GET with the document build returns.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request, build func() (any, error)) {
	if r.Method != http.MethodGet {
		writeError(w, errMethod(r.Method))
		return
	}
	if _, err := wantsTable(r.Header.Get("Accept"), false); err != nil {
		writeError(w, err)
		return
	}
	doc, err := build()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// serverVersion is what /version reports: 1.33, the last minor that sends the
// list blueprint on the initial-events-end bookmark (as this server does),
// and within kubectl 1.32's supported skew.
func serverVersion() version.Info {
	return version.Info{
		Major: "1", Minor: "33", GitVersion: "v1.33.0", GitCommit: "fakeapi", GitTreeState: "clean",
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
}

func (s *Server) groupVersions() []schema.GroupVersion {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for gvr := range s.resources {
		if gv := gvr.GroupVersion(); !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return version.CompareKubeAwareVersionStrings(out[i].Version, out[j].Version) > 0
	})
	return out
}

func (s *Server) apiVersions(r *http.Request) *metav1.APIVersions {
	var versions []string
	for _, gv := range s.groupVersions() {
		if gv.Group == "" {
			versions = append(versions, gv.Version)
		}
	}
	return &metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		Versions:                   versions,
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}},
	}
}

// groups returns the named groups with their versions, preferred first.
func (s *Server) groups() []metav1.APIGroup {
	var out []metav1.APIGroup
	for _, gv := range s.groupVersions() {
		if gv.Group == "" {
			continue
		}
		v := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		if n := len(out); n > 0 && out[n-1].Name == gv.Group {
			out[n-1].Versions = append(out[n-1].Versions, v)
			continue
		}
		out = append(out, metav1.APIGroup{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
			Name:     gv.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v,
		})
	}
	return out
}

func (s *Server) apiGroupList() *metav1.APIGroupList {
	groups := s.groups()
	for i := range groups {
		groups[i].TypeMeta = metav1.TypeMeta{}
	}
	return &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: groups}
}

func (s *Server) apiGroup(name string) (*metav1.APIGroup, error) {
	for _, g := range s.groups() {
		if g.Name == name {
			return &g, nil
		}
	}
	return nil, errNotFoundPath()
}

var resourceVerbs = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

func (s *Server) apiResourceList(gv schema.GroupVersion) (*metav1.APIResourceList, error) {
	s.mu.Lock()
	var list []metav1.APIResource
	for gvr, r := range s.resources {
		if gvr.GroupVersion() != gv {
			continue
		}
		list = append(list, metav1.APIResource{
			Name: gvr.Resource, SingularName: r.info.Singular, Namespaced: r.info.Namespaced,
			Kind: r.info.Kind, Verbs: resourceVerbs, ShortNames: r.info.ShortNames,
		})
		if r.info.HasStatus {
			list = append(list, metav1.APIResource{Name: gvr.Resource + "/status", Namespaced: r.info.Namespaced,
				Kind: r.info.Kind, Verbs: metav1.Verbs{"get", "patch", "update"}})
		}
	}
	s.mu.Unlock()
	if len(list) == 0 {
		return nil, errNotFoundPath()
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv.String(), APIResources: list,
	}, nil
}
