package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/internal/kubejson"
)

// listDecoder reads a list response as a stream: the items are decoded one at a
// time as they arrive, so the whole body is never held in memory next to the
// objects made from it. Peak memory is the decoded objects plus one item's
// bytes.
//
// It also checks what the list claims to be against what was asked for: the
// list's apiVersion must be the resource's group and version, its kind the
// resource's kind with "List" (when the client knows it: resource_kind.go), and
// every item that names its kind must name the list's item kind. A list that
// says ConfigMapList and carries a Secret is refused, not cached, and so is a
// list that gives its kind, apiVersion, metadata or items twice.
type listDecoder struct {
	scheme   *runtime.Scheme
	gv       schema.GroupVersion // the resource's group and version
	resource string              // the resource, for messages
	want     string              // the resource's kind, or "" if unknown
}

// decode reads one list from body.
func (d listDecoder) decode(body io.Reader) (runtime.Object, error) {
	dec := json.NewDecoder(body)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, fmt.Errorf("list response is not a JSON object: %w", err)
	}
	var (
		head     typeHead
		metadata json.RawMessage
		itemGVK  schema.GroupVersionKind
		items    []runtime.Object
		early    []json.RawMessage // items that came before kind and apiVersion
	)
	seen := map[string]bool{}
	ready := func() error {
		if itemGVK.Kind != "" || head.Kind == "" || head.APIVersion == "" {
			return nil
		}
		gvk, err := d.itemKind(head)
		itemGVK = gvk
		return err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("list response: %w", err)
		}
		switch key {
		case "kind", "apiVersion", "metadata", "items":
			if seen[key.(string)] {
				return nil, fmt.Errorf("list response gives %q twice", key)
			}
			seen[key.(string)] = true
		}
		switch key {
		case "kind":
			err = dec.Decode(&head.Kind)
		case "apiVersion":
			err = dec.Decode(&head.APIVersion)
		case "metadata":
			err = dec.Decode(&metadata)
		case "items":
			err = d.eachItem(dec, func(raw json.RawMessage) error {
				if err := ready(); err != nil {
					return err
				}
				if itemGVK.Kind == "" {
					early = append(early, raw)
					return nil
				}
				obj, err := d.item(raw, itemGVK, len(items))
				items = append(items, obj)
				return err
			})
			if err != nil {
				return nil, err // says which item, or what is wrong with the array
			}
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("list response: %w", err)
		}
		if err := ready(); err != nil {
			return nil, err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, fmt.Errorf("list response: %w", err)
	}
	if tok, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, fmt.Errorf("list response: after the list: %w", err)
		}
		return nil, fmt.Errorf("list response: %v after the list", tok)
	}
	if itemGVK.Kind == "" {
		return nil, fmt.Errorf("list response has kind %q and apiVersion %q, want a <Kind>List", head.Kind, head.APIVersion)
	}
	for _, raw := range early {
		obj, err := d.item(raw, itemGVK, len(items))
		if err != nil {
			return nil, err
		}
		items = append(items, obj)
	}
	return d.assemble(head, metadata, itemGVK, items)
}

// itemKind checks the list's kind and apiVersion and returns its items' kind.
func (d listDecoder) itemKind(head typeHead) (schema.GroupVersionKind, error) {
	if !strings.HasSuffix(head.Kind, "List") || head.Kind == "List" {
		return schema.GroupVersionKind{}, fmt.Errorf("list response has kind %q and apiVersion %q, want a <Kind>List", head.Kind, head.APIVersion)
	}
	listGVK, err := head.gvk()
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	if listGVK.GroupVersion() != d.gv {
		return schema.GroupVersionKind{}, fmt.Errorf("list response is a %s %s, not of the resource's group and version %q", head.APIVersion, head.Kind, d.gv.String())
	}
	if err := d.checkKind(head.Kind, d.want); err != nil {
		return schema.GroupVersionKind{}, err
	}
	return d.gv.WithKind(strings.TrimSuffix(head.Kind, "List")), nil
}

// checkKind refuses a list of kind listKind for a resource that holds want
// ("" if unknown: anything goes).
func (d listDecoder) checkKind(listKind, want string) error {
	if want != "" && listKind != want+"List" {
		return fmt.Errorf("list response is a %s, but %s holds %s (a %sList)", listKind, d.resource, want, want)
	}
	return nil
}

// eachItem calls f with each element of the items array, or not at all for null.
func (d listDecoder) eachItem(dec *json.Decoder, f func(json.RawMessage) error) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("list response: items: %w", err)
	}
	if tok == nil {
		return nil
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '[' {
		return fmt.Errorf("list response: items is not an array (it starts with %v)", tok)
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("list response: items: %w", err)
		}
		if err := f(raw); err != nil {
			return err
		}
	}
	if err := expectDelim(dec, ']'); err != nil {
		return fmt.Errorf("list response: items: %w", err)
	}
	return nil
}

// item decodes the i-th item, which must be a gvk (items usually carry no kind
// on the wire; they are given it).
func (d listDecoder) item(raw json.RawMessage, gvk schema.GroupVersionKind, i int) (runtime.Object, error) {
	var obj runtime.Object
	if d.scheme != nil && d.scheme.Recognizes(gvk) {
		typed, err := decodeAs(d.scheme, raw, gvk)
		if err != nil {
			return nil, fmt.Errorf("list response: item %d: %w", i, err)
		}
		obj = typed
	} else {
		var m map[string]any
		if err := kubejson.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("list response: item %d: decoding %v: %w", i, gvk, err)
		}
		if m == nil {
			return nil, fmt.Errorf("list response: item %d is not an object", i)
		}
		obj = &unstructured.Unstructured{Object: m}
	}
	got := obj.GetObjectKind().GroupVersionKind()
	if got.Empty() {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		return obj, nil
	}
	if got != gvk {
		name := ""
		if m, err := meta.Accessor(obj); err == nil {
			name = " (" + m.GetNamespace() + "/" + m.GetName() + ")"
		}
		return nil, fmt.Errorf("item %d%s is a %s %s, not a %s in a %sList", i, name, got.GroupVersion(), got.Kind, gvk.Kind, gvk.Kind)
	}
	return obj, nil
}

// assemble builds the list object: typed if the scheme knows the list kind,
// else unstructured.
func (d listDecoder) assemble(head typeHead, metadata json.RawMessage, itemGVK schema.GroupVersionKind, items []runtime.Object) (runtime.Object, error) {
	listGVK := itemGVK.GroupVersion().WithKind(head.Kind)
	var listMeta metav1.ListMeta
	if len(metadata) > 0 && string(metadata) != "null" {
		if err := kubejson.Unmarshal(metadata, &listMeta); err != nil {
			return nil, fmt.Errorf("decoding %v metadata: %w", listGVK, err)
		}
	}
	if d.scheme != nil && d.scheme.Recognizes(listGVK) {
		list, err := d.scheme.New(listGVK)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", listGVK, err)
		}
		list.GetObjectKind().SetGroupVersionKind(listGVK)
		lm, err := meta.ListAccessor(list)
		if err != nil {
			return nil, fmt.Errorf("%v is not a list: %w", listGVK, err)
		}
		lm.SetResourceVersion(listMeta.ResourceVersion)
		lm.SetContinue(listMeta.Continue)
		lm.SetRemainingItemCount(listMeta.RemainingItemCount)
		if err := meta.SetList(list, items); err != nil {
			return nil, fmt.Errorf("%v is not a list: %w", listGVK, err)
		}
		return list, nil
	}
	ul := &unstructured.UnstructuredList{Object: map[string]any{}, Items: make([]unstructured.Unstructured, 0, len(items))}
	ul.SetGroupVersionKind(listGVK)
	ul.SetResourceVersion(listMeta.ResourceVersion)
	ul.SetContinue(listMeta.Continue)
	ul.SetRemainingItemCount(listMeta.RemainingItemCount)
	for _, obj := range items {
		ul.Items = append(ul.Items, *obj.(*unstructured.Unstructured))
	}
	return ul, nil
}

// expectDelim reads the next token and checks it is want.
func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return fmt.Errorf("want %q, got %v", want, tok)
	}
	return nil
}
