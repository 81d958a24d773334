//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main, outside a browser, says how to build and open the playground.
func main() {
	fmt.Fprintln(os.Stderr, "playground: this program runs in a browser tab (GOOS=js GOARCH=wasm); build the site with\n  go run ./cmd/playground/build -out site/\nthen serve the folder, e.g. cd site && python3 -m http.server 8000, and open http://127.0.0.1:8000/")
	os.Exit(2)
}
