package fakeapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Content negotiation. The server speaks JSON only:
//
//	Accept: application/json (or */*, or none)      -> JSON
//	Accept: application/json;as=Table;g=meta.k8s.io;v=v1 -> a meta.k8s.io/v1 Table (GET only)
//	Accept: protobuf, yaml, ... with no JSON option  -> 406 NotAcceptable
//	Content-Type: protobuf, yaml, ...               -> 415 UnsupportedMediaType
//
// Alternatives are tried in the order given, like the real server; q values
// other than 0 are ignored.

const protobufAdvice = "this server speaks JSON only; set rest.Config.ContentType = \"application/json\" (and AcceptContentTypes)"

// wantsTable reports whether the first acceptable media type in accept is a
// Table (only considered when tableOK), or returns 406 if none is acceptable.
func wantsTable(accept string, tableOK bool) (bool, error) {
	if strings.TrimSpace(accept) == "" {
		return false, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		if mt != "application/json" && mt != "*/*" && mt != "application/*" {
			continue
		}
		switch as := params["as"]; {
		case as == "":
			return false, nil
		case as == "Table" && params["g"] == "meta.k8s.io" && params["v"] == "v1" && tableOK:
			return true, nil
		}
	}
	msg := "only the following media types are accepted: application/json"
	if tableOK {
		msg += ", application/json;as=Table;v=v1;g=meta.k8s.io"
	}
	if strings.Contains(accept, "protobuf") {
		msg += "; " + protobufAdvice
	}
	return false, errStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, msg)
}

// bodyMediaType returns the media type of a request body ("" defaults to
// JSON), or 415 for one the server cannot read.
func bodyMediaType(r *http.Request, patch bool) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		if patch {
			return "", errUnsupportedMediaType("a PATCH needs a Content-Type: application/merge-patch+json, application/strategic-merge-patch+json or application/json-patch+json")
		}
		return "application/json", nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", errUnsupportedMediaType(fmt.Sprintf("invalid Content-Type %q: %v", ct, err))
	}
	if strings.Contains(mt, "protobuf") {
		return "", errUnsupportedMediaType(fmt.Sprintf("the body of the request was in an unknown format (%s); %s", mt, protobufAdvice))
	}
	if patch {
		switch types.PatchType(mt) {
		case types.MergePatchType, types.StrategicMergePatchType, types.JSONPatchType, types.ApplyPatchType, types.ApplyCBORPatchType:
			return mt, nil
		}
		return "", errUnsupportedMediaType(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s",
			types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType))
	}
	if mt != "application/json" {
		return "", errUnsupportedMediaType(fmt.Sprintf("the body of the request was in an unknown format (%s) - accepted media types include: application/json", mt))
	}
	return mt, nil
}

// readBody reads the request body within the size limit (413 beyond it).
func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", tooBig.Limit))
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("fakeapi: reading request body: %v", err))
	}
	return data, nil
}
