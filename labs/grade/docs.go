package grade

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// CheckDocs checks that every behaviour's Doc names a file of the
// repository and a heading in it, so the links the grader prints lead
// somewhere.
func CheckDocs(behaviours []Behaviour) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	anchors := map[string]map[string]bool{}
	var errs []error
	for _, b := range behaviours {
		file, anchor, ok := strings.Cut(b.Doc, "#")
		if !ok || file == "" || anchor == "" {
			errs = append(errs, fmt.Errorf("behaviour %s: Doc %q is not a path#anchor", b.Name, b.Doc))
			continue
		}
		if anchors[file] == nil {
			a, err := headingAnchors(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				errs = append(errs, fmt.Errorf("behaviour %s: %w", b.Name, err))
				continue
			}
			anchors[file] = a
		}
		if !anchors[file][anchor] {
			errs = append(errs, fmt.Errorf("behaviour %s: %s has no heading with anchor #%s", b.Name, file, anchor))
		}
	}
	return errors.Join(errs...)
}

// RepoRoot walks up from the working directory to the directory holding
// informerlab's go.mod: the root the Doc links are relative to.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/informerlab/informerlab\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no informerlab go.mod above the working directory: run this inside the informerlab repository")
		}
		dir = parent
	}
}

// headingAnchors returns the anchors a Markdown renderer gives the headings
// of file, outside code blocks.
func headingAnchors(file string) (map[string]bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	anchors := map[string]bool{}
	inCode := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		anchors[Anchor(strings.TrimLeft(line, "#"))] = true
	}
	return anchors, sc.Err()
}

// Anchor returns the anchor GitHub gives a heading: lower case, letters,
// digits, '-' and '_' kept, spaces turned into '-', everything else dropped.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
