package fakeapi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The fault-injection API over HTTP (same authentication as the API):
//
//	GET  /admin/faults                                   the FaultCounts, as JSON
//	POST /admin/faults/close-watches                     CloseWatches
//	POST /admin/faults/compact                           Compact
//	POST /admin/faults/fail-next?verb=list&count=2&code=503   FailNext
//	POST /admin/faults/watch-error?code=410&reason=Expired&message=...
//	                                                     InjectWatchError (or a Status as the JSON body)
//	POST /admin/faults/hang-watches?on=true|false        HangWatches
//	POST /admin/faults/latency?delay=250ms               SetLatency ("0" removes it)
//	*    /admin/silent/api/v1/...  /admin/silent/apis/...  the normal API, but writes emit no watch event
//
// Successful fault calls answer a Status with status Success.

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request, segs []string) {
	if len(segs) >= 2 && segs[0] == "silent" && (segs[1] == "api" || segs[1] == "apis") &&
		(len(segs) >= 4 || (segs[1] == "api" && len(segs) >= 3)) {
		s.serveAPI(w, r, segs[1:], true)
		return
	}
	if len(segs) == 0 || segs[0] != "faults" || len(segs) > 2 {
		writeError(w, errNotFoundPath())
		return
	}
	if len(segs) == 1 {
		if r.Method != http.MethodGet {
			writeError(w, errMethod(r.Method))
			return
		}
		writeJSON(w, http.StatusOK, s.Faults())
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, errMethod(r.Method))
		return
	}
	msg, err := s.adminFault(r, segs[1])
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusSuccess, Code: http.StatusOK, Message: msg})
}

func (s *Server) adminFault(r *http.Request, name string) (string, error) {
	q := r.URL.Query()
	switch name {
	case "close-watches":
		s.CloseWatches()
		return "closed every open watch", nil
	case "compact":
		s.Compact()
		return "compacted the watch history", nil
	case "fail-next":
		n, err1 := strconv.Atoi(q.Get("count"))
		code, err2 := strconv.Atoi(q.Get("code"))
		if err1 != nil || err2 != nil {
			return "", apierrors.NewBadRequest("fail-next needs integer count and code parameters, e.g. ?verb=list&count=2&code=503")
		}
		if err := s.FailNext(q.Get("verb"), n, code); err != nil {
			return "", apierrors.NewBadRequest(err.Error())
		}
		return fmt.Sprintf("the next %d %s requests fail with %d", n, q.Get("verb"), code), nil
	case "watch-error":
		st, err := watchErrorStatus(r)
		if err != nil {
			return "", err
		}
		s.InjectWatchError(st)
		return fmt.Sprintf("sent ERROR %d to every open watch", st.Code), nil
	case "hang-watches":
		on, err := strconv.ParseBool(q.Get("on"))
		if err != nil {
			return "", apierrors.NewBadRequest("hang-watches needs on=true or on=false")
		}
		s.HangWatches(on)
		return fmt.Sprintf("watches hung: %v", on), nil
	case "latency":
		d, err := time.ParseDuration(q.Get("delay"))
		if err != nil || d < 0 {
			return "", apierrors.NewBadRequest("latency needs a non-negative delay, e.g. ?delay=250ms")
		}
		s.SetLatency(d)
		return fmt.Sprintf("every request now waits %v", d), nil
	}
	return "", errNotFoundPath()
}

// watchErrorStatus reads the Status to inject: a JSON body, or the code,
// reason and message query parameters (default 500 InternalError).
func watchErrorStatus(r *http.Request) (*metav1.Status, error) {
	data, err := readBody(r)
	if err != nil {
		return nil, err
	}
	st := &metav1.Status{}
	if len(data) > 0 {
		if err := utiljson.Unmarshal(data, st); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("watch-error body must be a Status: %v", err))
		}
	} else {
		q := r.URL.Query()
		code := http.StatusInternalServerError
		if c := q.Get("code"); c != "" {
			if code, err = strconv.Atoi(c); err != nil {
				return nil, apierrors.NewBadRequest("watch-error code must be an integer")
			}
		}
		st.Code = int32(code)
		st.Reason = metav1.StatusReason(q.Get("reason"))
		st.Message = q.Get("message")
	}
	if st.Code < 400 || st.Code > 599 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("watch-error code must be 4xx or 5xx, not %d", st.Code))
	}
	if st.Reason == "" {
		st.Reason = apierrors.NewGenericServerResponse(int(st.Code), "watch", schema.GroupResource{}, "", "", 0, false).ErrStatus.Reason
	}
	if st.Message == "" {
		st.Message = "fakeapi: injected watch error"
	}
	return st, nil
}
