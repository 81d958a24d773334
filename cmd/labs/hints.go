package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// hintBlock matches one hint of a lab's README, kept folded in a
// <details> block: its number, its title and its text.
var hintBlock = regexp.MustCompile(`(?s)<details><summary>Hint (\d+): ([^<]*)</summary>\n(.*?)</details>`)

// hint is one hint of a lab.
type hint struct {
	title, text string
}

// readHints returns the hints of a lab's README, in order.
func readHints(root, lab string) ([]hint, error) {
	data, err := os.ReadFile(filepath.Join(root, "labs", lab, "README.md"))
	if err != nil {
		return nil, fmt.Errorf("labs: %w", err)
	}
	var hints []hint
	for _, m := range hintBlock.FindAllStringSubmatch(string(data), -1) {
		hints = append(hints, hint{title: strings.TrimSpace(m[2]), text: strings.TrimSpace(m[3])})
	}
	return hints, nil
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
