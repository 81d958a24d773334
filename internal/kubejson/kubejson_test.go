package kubejson_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/internal/kubejson"
)

// object is shaped like an API object: typed metadata, a spec below it.
type object struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Replicas *int32 `json:"replicas"`
	} `json:"spec"`
}

// A key matches a field only in its own case, at every depth, whatever the
// order of the keys: what the program reads is what the API server stored.
// encoding/json, for the same bytes, reads the other key (checked here too, so
// the test shows what it guards against).
// Diagram: none (the bytes of step 1 and of an admission request). apimachinery:
// util/json.Unmarshal, the JSON serializer's case-sensitive decoding.
func TestKeysMatchOnlyInTheirOwnCase(t *testing.T) {
	cases := []struct {
		name, body    string
		replicas      int32
		objName       string
		stdlibReplica int32
	}{
		{"lower case first", `{"metadata":{"name":"a","Name":"b"},"spec":{"replicas":1000,"Replicas":1}}`, 1000, "a", 1},
		{"other case first", `{"metadata":{"NAME":"b","name":"a"},"spec":{"Replicas":1,"replicas":1000}}`, 1000, "a", 1000},
		{"other case only", `{"metadata":{"name":"a"},"spec":{"REPLICAS":1}}`, 0, "a", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got, std object

			err := kubejson.Unmarshal([]byte(tc.body), &got)

			require.NoError(t, err)
			require.NoError(t, json.Unmarshal([]byte(tc.body), &std))
			assert.Equal(t, tc.objName, got.Name)
			if tc.replicas == 0 {
				assert.Nil(t, got.Spec.Replicas, "a key of another case is an unknown field")
			} else {
				require.NotNil(t, got.Spec.Replicas)
				assert.Equal(t, tc.replicas, *got.Spec.Replicas)
			}
			require.NotNil(t, std.Spec.Replicas)
			assert.Equal(t, tc.stdlibReplica, *std.Spec.Replicas, "encoding/json for comparison")
		})
	}
}

// A key given twice in one object keeps its last value, as the API server's
// decoding does when the write did not ask for strict field validation; and
// an integer decoded into an interface value is an int64, as in an
// unstructured object.
// Diagram: none. apimachinery: util/json.Unmarshal (PreserveInts).
func TestDuplicateKeysKeepTheLastValueAndIntegersStayIntegers(t *testing.T) {
	var typed object
	var m map[string]any

	typedErr := kubejson.Unmarshal([]byte(`{"spec":{"replicas":1,"replicas":2}}`), &typed)
	mapErr := kubejson.Unmarshal([]byte(`{"n":1,"n":9007199254740993,"f":1.5}`), &m)

	require.NoError(t, typedErr)
	require.NoError(t, mapErr)
	assert.Equal(t, int32(2), *typed.Spec.Replicas)
	assert.Equal(t, int64(9007199254740993), m["n"], "an int64, not a float64 that rounds it")
	assert.Equal(t, 1.5, m["f"])
}

// Bad input is an error prefixed with the package, never a panic.
// Diagram: none.
func TestBadInputIsAnError(t *testing.T) {
	var o object
	for _, body := range []string{``, `{`, `[]`, `{"spec":{"replicas":"x"}}`, `{"metadata":{"name":1}}`} {
		err := kubejson.Unmarshal([]byte(body), &o)

		assert.ErrorContains(t, err, "kubejson: ", "input %q", body)
	}
	assert.ErrorContains(t, kubejson.Unmarshal([]byte(`{}`), o), "kubejson: ", "a non-pointer")
}
