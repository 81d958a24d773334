package fakeapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func decodeAny(t *testing.T, s string) any {
	t.Helper()
	var v any
	require.NoError(t, utiljson.Unmarshal([]byte(s), &v))
	return v
}

// TestMergePatchFollowsRFC7386 runs the examples of RFC 7386 appendix A.
// Diagram: API. client-go: types.MergePatchType.
func TestMergePatchFollowsRFC7386(t *testing.T) {
	tests := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.target+"+"+tt.patch, func(t *testing.T) {
			got := mergePatch(decodeAny(t, tt.target), decodeAny(t, tt.patch))

			assert.Equal(t, decodeAny(t, tt.want), got)
		})
	}
}

// TestJSONPatchOperations checks each RFC 6902 operation and its failures.
// Diagram: API. client-go: types.JSONPatchType.
func TestJSONPatchOperations(t *testing.T) {
	doc := `{"a":{"b":[1,2,3]},"c":"x"}`
	tests := []struct {
		name, patch, want string
		wantErr           bool
	}{
		{"add to object", `[{"op":"add","path":"/d","value":4}]`, `{"a":{"b":[1,2,3]},"c":"x","d":4}`, false},
		{"add into array", `[{"op":"add","path":"/a/b/1","value":9}]`, `{"a":{"b":[1,9,2,3]},"c":"x"}`, false},
		{"append", `[{"op":"add","path":"/a/b/-","value":9}]`, `{"a":{"b":[1,2,3,9]},"c":"x"}`, false},
		{"remove", `[{"op":"remove","path":"/a/b/0"}]`, `{"a":{"b":[2,3]},"c":"x"}`, false},
		{"replace", `[{"op":"replace","path":"/c","value":{"y":1}}]`, `{"a":{"b":[1,2,3]},"c":{"y":1}}`, false},
		{"move", `[{"op":"move","from":"/c","path":"/a/c"}]`, `{"a":{"b":[1,2,3],"c":"x"}}`, false},
		{"copy", `[{"op":"copy","from":"/a/b/2","path":"/z"}]`, `{"a":{"b":[1,2,3]},"c":"x","z":3}`, false},
		{"test ok", `[{"op":"test","path":"/c","value":"x"}]`, doc, false},
		{"escaped pointer", `[{"op":"add","path":"/a~1b~0c","value":1}]`, `{"a":{"b":[1,2,3]},"c":"x","a/b~c":1}`, false},
		{"test fails", `[{"op":"test","path":"/c","value":"y"}]`, "", true},
		{"remove missing", `[{"op":"remove","path":"/nope"}]`, "", true},
		{"replace missing", `[{"op":"replace","path":"/nope","value":1}]`, "", true},
		{"index out of range", `[{"op":"add","path":"/a/b/7","value":1}]`, "", true},
		{"move into itself", `[{"op":"move","from":"/a","path":"/a/b/x"}]`, "", true},
		{"bad pointer", `[{"op":"add","path":"c","value":1}]`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := parseJSONPatch([]byte(tt.patch))
			require.NoError(t, err)

			got, err := applyJSONPatch(decodeAny(t, doc), ops)

			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, decodeAny(t, tt.want), got)
		})
	}
	for _, bad := range []string{`{}`, `[{"op":"nope","path":"/a"}]`, `[{"op":"add","path":"/a"}]`, `[{"op":1}]`} {
		_, err := parseJSONPatch([]byte(bad))
		assert.Error(t, err, bad)
	}
}
