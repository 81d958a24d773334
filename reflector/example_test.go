package reflector_test

import (
	"context"
	"fmt"
	"log/slog"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/reflector"
)

// mapStore is the smallest useful Store: the objects by namespace/name. It
// prints every call (from the Reflector's goroutine, so in order) and tells
// done about it, so the example can wait for it.
type mapStore struct {
	objs map[string]string // key -> resourceVersion
	done chan string
}

func key(obj any) string {
	m, _ := meta.Accessor(obj)
	return m.GetNamespace() + "/" + m.GetName()
}

func rv(obj any) string {
	m, _ := meta.Accessor(obj)
	return m.GetResourceVersion()
}

func (s *mapStore) Add(obj any) error {
	s.objs[key(obj)] = rv(obj)
	s.report("Add " + key(obj))
	return nil
}

func (s *mapStore) Update(obj any) error {
	s.objs[key(obj)] = rv(obj)
	s.report("Update " + key(obj))
	return nil
}

func (s *mapStore) Delete(obj any) error {
	delete(s.objs, key(obj))
	s.report("Delete " + key(obj))
	return nil
}

func (s *mapStore) Replace(list []any, resourceVersion string) error {
	clear(s.objs)
	for _, obj := range list {
		s.objs[key(obj)] = rv(obj)
	}
	s.report(fmt.Sprintf("Replace %d objects at resourceVersion %s", len(list), resourceVersion))
	return nil
}

func (s *mapStore) Resync() error { return nil }

func (s *mapStore) report(call string) {
	fmt.Println(call)
	s.done <- call
}

func (s *mapStore) print() {
	keys := make([]string, 0, len(s.objs))
	for k := range s.objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("  %s@%s\n", k, s.objs[k])
	}
}

func newPod(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
}

// A Reflector lists once, replaces the Store's contents with the list, then
// applies every watch event to the Store (diagram steps 1 and 2). Here the
// "API server" is a ListWatch over a fixed list and a fake watch.
func Example() {
	events := watch.NewRaceFreeFake()
	watching := make(chan struct{})
	lw := reflector.ListWatch{
		ListFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			fmt.Printf("List  resourceVersion=%q\n", opts.ResourceVersion)
			list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
			list.Items = []metav1.PartialObjectMetadata{*newPod("web-1", "8"), *newPod("web-2", "10")}
			return list, nil
		},
		WatchFunc: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			fmt.Printf("Watch resourceVersion=%q bookmarks=%v\n", opts.ResourceVersion, opts.AllowWatchBookmarks)
			close(watching)
			return events, nil
		},
	}
	store := &mapStore{objs: map[string]string{}, done: make(chan string)}
	quiet := slog.New(slog.DiscardHandler)
	r := reflector.New(lw, &metav1.PartialObjectMetadata{}, store, reflector.Options{Name: "pods", Logger: quiet})

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		r.Run(ctx)
		close(stopped)
	}()
	<-store.done // Replace
	<-watching

	events.Add(newPod("web-3", "11"))
	events.Modify(newPod("web-1", "12"))
	events.Delete(newPod("web-2", "13"))
	<-store.done
	<-store.done
	<-store.done

	cancel()
	<-stopped
	fmt.Println("LastSyncResourceVersion:", r.LastSyncResourceVersion())
	fmt.Println("Store:")
	store.print()

	// Output:
	// List  resourceVersion="0"
	// Replace 2 objects at resourceVersion 10
	// Watch resourceVersion="10" bookmarks=true
	// Add default/web-3
	// Update default/web-1
	// Delete default/web-2
	// LastSyncResourceVersion: 13
	// Store:
	//   default/web-1@12
	//   default/web-3@11
}

// ExampleWidenedShard: what a change of selector adds, when it gives
// nothing up. A sharded controller that takes over a bucket widens its
// selectors this way, and its Reflector lists only the gained part.
func ExampleWidenedShard() {
	show := func(gained string, ok bool) { fmt.Printf("%q %v\n", gained, ok) }
	low := "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	show(reflector.WidenedShard(low, ""))
	show(reflector.WidenedShard("", low)) // a narrowing: a full relist
	show(reflector.WidenedLabels("bucket in (3,9)", "bucket in (3,4,9)"))
	// Output:
	// "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')" true
	// "" false
	// "bucket in (4)" true
}
