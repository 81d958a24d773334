package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A lab's hints are files of its hints/ directory, 1.md, 2.md, …, each
// starting with a "# Hint K: title" line. They live outside the README so
// that a learner reads one only by asking for it.

// hint is one hint of a lab.
type hint struct {
	title, text string
}

// readHints returns the hints of a lab, in order: hints/1.md up to the
// first number missing.
func readHints(root, lab string) ([]hint, error) {
	var hints []hint
	for k := 1; ; k++ {
		data, err := os.ReadFile(filepath.Join(root, "labs", lab, "hints", strconv.Itoa(k)+".md"))
		if errors.Is(err, fs.ErrNotExist) {
			return hints, nil
		}
		if err != nil {
			return nil, fmt.Errorf("labs: %w", err)
		}
		first, text, _ := strings.Cut(string(data), "\n")
		prefix := fmt.Sprintf("# Hint %d: ", k)
		title, ok := strings.CutPrefix(first, prefix)
		if !ok {
			return nil, fmt.Errorf("labs: %s hint %d: the first line must be %q and a title", lab, k, prefix)
		}
		hints = append(hints, hint{title: strings.TrimSpace(title), text: strings.TrimSpace(text)})
	}
}

// writeHint writes hint k (from 1) of a lab, and how to open the next.
func writeHint(w io.Writer, root, lab string, k int) error {
	hints, err := readHints(root, lab)
	if err != nil {
		return err
	}
	if k < 1 || k > len(hints) {
		return &usageError{msg: fmt.Sprintf("lab %s has hints 1 to %d, not %d", lab, len(hints), k)}
	}
	h := hints[k-1]
	fmt.Fprintf(w, "%s, hint %d of %d: %s\n\n%s\n", lab, k, len(hints), h.title, h.text)
	if k < len(hints) {
		fmt.Fprintf(w, "\nStuck still? go run ./cmd/labs %s --hint %d\n", lab, k+1)
	}
	return nil
}
