package informer

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
)

// nameForHandler names a handler for its metrics, as client-go does: a
// [ResourceEventHandlerFuncs] by the functions it holds (their common
// qualifier, "example.com/app.(*controller)", when they all come from one
// place; otherwise their full names joined by "+"), any other handler by
// its package path and type name. Methods and closures of one type thus
// share a name; so do two handlers of one type. A typed handler (see
// [UntypedResourceEventHandler]) is named in the same way after itself, not
// after the adapter around it.
//
// client-go: tools/cache nameForHandler (event_handler_name.go).
func nameForHandler(handler ResourceEventHandler) string {
	switch h := handler.(type) {
	case ResourceEventHandlerFuncs:
		if name := nameForFunctions(h.AddFunc, h.UpdateFunc, h.DeleteFunc); name != "" {
			return name
		}
	case *ResourceEventHandlerFuncs:
		if h != nil {
			if name := nameForFunctions(h.AddFunc, h.UpdateFunc, h.DeleteFunc); name != "" {
				return name
			}
		}
	case typedHandlerName:
		return h.handlerName()
	default:
		return nameForType(handler)
	}
	return fmt.Sprintf("%T", handler)
}

// typedHandlerName is a handler that names itself after what it wraps: the
// adapter of [UntypedResourceEventHandler].
type typedHandlerName interface{ handlerName() string }

// nameForType names v by its package path and type name, or as %T prints
// it when the type has no name.
func nameForType(v any) string {
	if t := reflect.TypeOf(v); t != nil {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Name() != "" {
			if t.PkgPath() == "" {
				return t.Name()
			}
			return t.PkgPath() + "." + t.Name()
		}
	}
	return fmt.Sprintf("%T", v)
}

// nameForFunctions is the common qualifier of the non-nil functions' names
// (the name up to its last dot), or, when they differ, their names joined
// by "+"; "" if there is none.
func nameForFunctions(fns ...any) string {
	var names []string
	qualifier, same := "", true
	for _, f := range fns {
		v := reflect.ValueOf(f)
		if !v.IsValid() || v.IsNil() {
			continue
		}
		fn := runtime.FuncForPC(v.Pointer())
		if fn == nil {
			continue
		}
		name := fn.Name()
		names = append(names, name)
		q := name
		if i := strings.LastIndexByte(q, '.'); i > 0 {
			q = q[:i]
		}
		switch qualifier {
		case "":
			qualifier = q
		case q:
		default:
			same = false
		}
	}
	if same {
		return qualifier
	}
	return strings.Join(names, "+")
}
