package sameorigin_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/informerlab/informerlab/internal/sameorigin"
)

// A server on 127.0.0.1:8080 behind a Guard: a program's JSON POST goes
// through; a form posted by a page of another site, and a read through a
// rebound DNS name, are refused.
func Example() {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	guard, err := sameorigin.New(addr, sameorigin.Options{})
	if err != nil {
		panic(err)
	}
	h := guard.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "done")
	}))
	send := func(what string, r *http.Request) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Printf("%-22s %d %s", what, w.Code, w.Body.String())
	}

	program := httptest.NewRequest("POST", "http://127.0.0.1:8080/api/control", strings.NewReader(`{}`))
	program.Header.Set("Content-Type", "application/json")
	send("a program's JSON POST", program)

	form := httptest.NewRequest("POST", "http://127.0.0.1:8080/api/control", strings.NewReader("name=x"))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	form.Header.Set("Origin", "http://evil.example")
	send("another site's form", form)

	rebound := httptest.NewRequest("GET", "http://evil.example:8080/api/state", nil)
	send("a rebound read", rebound)

	// Output:
	// a program's JSON POST  200 done
	// another site's form    403 sameorigin: refused: a POST request from the page at "http://evil.example", not from this server's own page (http://127.0.0.1:8080)
	// a rebound read         403 sameorigin: refused: Host "evil.example:8080" is not this server (localhost, 127.0.0.1, [::1] with port 8080); a page of another site reaches a local server through a name of its own (DNS rebinding)
}
