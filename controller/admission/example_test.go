package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/informerlab/informerlab/controller/admission"
)

// The API server POSTs an AdmissionReview and stores the write only if the
// answer allows it. This webhook refuses ConfigMaps whose data holds a key
// named "password"; the answer carries the request's uid and, on a refusal,
// the message kubectl shows.
func Example() {
	refusePasswords := admission.HandlerFunc(func(_ context.Context, req admission.Request) admission.Response {
		var cm struct {
			Data map[string]string `json:"data"`
		}
		if err := json.Unmarshal(req.Object.Raw, &cm); err != nil {
			return admission.Denied(err)
		}
		if _, ok := cm.Data["password"]; ok {
			return admission.Denied(fmt.Errorf("configmaps/%s: a password belongs in a Secret", req.Name))
		}
		return admission.Allowed()
	})
	srv := httptest.NewServer(admission.Webhook(refusePasswords, slog.New(slog.DiscardHandler)))
	defer srv.Close()

	for i, data := range []string{`{"color":"blue"}`, `{"password":"hunter2"}`} {
		review := fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
			"uid":"uid-%d","kind":{"version":"v1","kind":"ConfigMap"},"resource":{"version":"v1","resource":"configmaps"},
			"name":"settings","namespace":"demo","operation":"CREATE","userInfo":{"username":"alice"},
			"object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":%s}}}`, i, data)
		resp, err := http.Post(srv.URL, "application/json", bytes.NewBufferString(review))
		if err != nil {
			panic(err)
		}
		var answer admission.Review
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			panic(err)
		}
		resp.Body.Close()
		r := answer.Response
		if r.Allowed {
			fmt.Printf("%s: data %s allowed\n", r.UID, data)
		} else {
			fmt.Printf("%s: data %s refused: %s\n", r.UID, data, r.Result.Message)
		}
	}
	// Output:
	// uid-0: data {"color":"blue"} allowed
	// uid-1: data {"password":"hunter2"} refused: configmaps/settings: a password belongs in a Secret
}
