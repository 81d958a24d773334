package kubejson

import (
	"fmt"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Unmarshal decodes data into v, which must be a non-nil pointer, as the API
// server decodes a request body: keys match field names (or json tags) exactly,
// a key of another case is an unknown field and is dropped, a key given twice
// keeps its last value, and integers decoded into an interface value are int64.
// It is a drop-in for encoding/json.Unmarshal: an admission webhook calls
// kubejson.Unmarshal(body, &review) where it called json.Unmarshal.
//
// client-go: apimachinery util/json.Unmarshal (the decoding of its JSON serializer).
func Unmarshal(data []byte, v any) error {
	if err := utiljson.Unmarshal(data, v); err != nil {
		return fmt.Errorf("kubejson: %w", err)
	}
	return nil
}
