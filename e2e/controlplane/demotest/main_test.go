package demotest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
)

// demoBinary is cmd/demo, built by TestMain from the main module.
var demoBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "informerlab-demotest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "demotest:", err)
		os.Exit(1)
	}
	demoBinary = filepath.Join(dir, "demo")
	args := []string{"build", "-o", demoBinary}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "./cmd/demo")...)
	build.Dir = filepath.Join("..", "..", "..") // the main module
	code := 1
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "demotest: go build ./cmd/demo: %v\n%s", err, out)
	} else {
		code = testenv.Run(m)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
