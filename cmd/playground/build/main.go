// Command build writes the playground, a static site: the pipeline page of
// `demo --web` with the sample controller, its informers and the embedded
// fakeapi compiled to WebAssembly and running in the browser tab.
//
//	go run ./cmd/playground/build -out site/
//
// writes into the folder:
//
//	index.html        the page (internal/pipelineweb's), loading the two below first
//	app.js style.css  the page's script and style, unchanged
//	playground.js     the loader: starts playground.wasm, hands the page its bridge
//	playground.wasm   cmd/playground, built for GOOS=js GOARCH=wasm, stripped (-s -w, -trimpath)
//	wasm_exec.js      the Go runtime's support script, copied from this toolchain
//
// Any static file server can host the folder (python3 -m http.server,
// GitHub Pages); the page requests nothing outside it.
package main

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

//go:embed playground.js
var loader []byte

// appScript is the page's script tag; the playground's scripts go before it.
const appScript = `<script src="app.js" defer></script>`

// playgroundScripts load the Go runtime's support and the loader, in order,
// before the page's script runs.
const playgroundScripts = `<script src="wasm_exec.js"></script>
<script src="playground.js"></script>
`

func main() {
	out := flag.String("out", "site", "the folder to write the site into (created if missing)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "build: unexpected argument %q: build takes only -out\n", flag.Arg(0))
		os.Exit(2)
	}
	if err := build(*out, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// build writes the site into dir and reports what it wrote to report.
func build(dir string, report io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	assets := pipelineweb.Assets()
	for _, name := range []string{"app.js", "style.css"} {
		data, err := fs.ReadFile(assets, name)
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	page, err := fs.ReadFile(assets, "index.html")
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	page, err = playgroundPage(page)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), page, 0o644); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "playground.js"), loader, 0o644); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if err := copyWasmExec(filepath.Join(dir, "wasm_exec.js")); err != nil {
		return err
	}
	wasm := filepath.Join(dir, "playground.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "github.com/informerlab/informerlab/cmd/playground")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build: go build of cmd/playground for js/wasm: %w", err)
	}
	raw, gz, err := sizes(wasm)
	if err != nil {
		return err
	}
	fmt.Fprintf(report, "build: wrote %s (playground.wasm: %.1f MB, %.1f MB gzipped); serve it with: cd %s && python3 -m http.server 8000\n",
		dir, float64(raw)/1e6, float64(gz)/1e6, dir)
	return nil
}

// playgroundPage is the page with the playground's scripts before app.js.
func playgroundPage(page []byte) ([]byte, error) {
	if !bytes.Contains(page, []byte(appScript)) {
		return nil, fmt.Errorf("build: the page has no %s to load the playground before", appScript)
	}
	return bytes.Replace(page, []byte(appScript), []byte(playgroundScripts+appScript), 1), nil
}

// copyWasmExec copies the toolchain's wasm_exec.js, which must match the
// Go version that built the .wasm: lib/wasm since Go 1.24, misc/wasm before.
func copyWasmExec(dst string) error {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("build: go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(goroot))
	for _, rel := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fmt.Errorf("build: %w", err)
		}
		return nil
	}
	return fmt.Errorf("build: no wasm_exec.js in %s (lib/wasm or misc/wasm)", root)
}

// sizes returns a file's size, raw and gzipped.
func sizes(path string) (raw, gz int64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("build: %w", err)
	}
	var n countWriter
	zw, _ := gzip.NewWriterLevel(&n, gzip.BestCompression)
	_, _ = zw.Write(data)
	_ = zw.Close()
	return int64(len(data)), int64(n), nil
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
