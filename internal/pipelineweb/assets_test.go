package pipelineweb_test

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// luminance is the relative luminance of a #rrggbb colour (WCAG 2).
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	hex = strings.TrimPrefix(hex, "#")
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	require.Len(t, hex, 6, "colour %q", hex)
	var c [3]float64
	for i := range c {
		v, err := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
		require.NoError(t, err)
		s := float64(v) / 255
		if s <= 0.03928 {
			c[i] = s / 12.92
		} else {
			c[i] = math.Pow((s+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}

func contrast(t *testing.T, a, b string) float64 {
	la, lb := luminance(t, a), luminance(t, b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestPageColoursKeepReadableContrast reads the stylesheet: every text
// colour (the step colours, the muted grey, the error red) keeps at least
// 4.5:1 against every light background the page paints, and white text
// against every dark one.
// Diagram: none. client-go: none.
func TestPageColoursKeepReadableContrast(t *testing.T) {
	css, err := os.ReadFile("assets/style.css")
	require.NoError(t, err)
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`(--[a-z0-9]+):\s*(#[0-9a-fA-F]{3,6})\b`).FindAllStringSubmatch(string(css), -1) {
		vars[m[1]] = m[2]
	}
	resolve := func(v string) string {
		if c, ok := vars[strings.TrimSuffix(strings.TrimPrefix(v, "var("), ")")]; ok {
			return c
		}
		return v
	}
	var texts, backgrounds []string
	for _, m := range regexp.MustCompile(`(?:^|[;{\s])(color|fill|background):\s*(#[0-9a-fA-F]{3,6}|var\(--[a-z0-9]+\))`).FindAllStringSubmatch(string(css), -1) {
		c := resolve(m[2])
		if m[1] == "background" {
			backgrounds = append(backgrounds, c)
		} else {
			texts = append(texts, c)
		}
	}
	for name, c := range vars {
		if strings.HasPrefix(name, "--s") || name == "--muted" || name == "--fg" {
			texts = append(texts, c)
		}
	}
	require.NotEmpty(t, texts)
	require.NotEmpty(t, backgrounds)

	for _, bg := range backgrounds {
		if luminance(t, bg) < 0.2 {
			assert.GreaterOrEqual(t, contrast(t, "#ffffff", bg), 4.5, "white on %s", bg)
			continue
		}
		for _, fg := range texts {
			if luminance(t, fg) > 0.5 {
				continue // white text: for dark backgrounds
			}
			assert.GreaterOrEqual(t, contrast(t, fg, bg), 4.5, "%s on %s", fg, bg)
		}
	}
}

// TestPageIsAccessibleAndSelfContained reads the page: the event log is
// an aria-live region, the diagram has a text alternative, motion stops
// under prefers-reduced-motion, and nothing is loaded from elsewhere.
// Diagram: none. client-go: none.
func TestPageIsAccessibleAndSelfContained(t *testing.T) {
	html, err := os.ReadFile("assets/index.html")
	require.NoError(t, err)
	js, err := os.ReadFile("assets/app.js")
	require.NoError(t, err)
	css, err := os.ReadFile("assets/style.css")
	require.NoError(t, err)

	assert.Regexp(t, `<ol id="log" role="log" aria-live="polite"`, string(html))
	assert.Regexp(t, `<svg id="diagram"[^>]*role="img" aria-labelledby="diagram-title diagram-desc"`, string(html))
	assert.Contains(t, string(css), "@media (prefers-reduced-motion: reduce)")
	assert.Contains(t, string(js), "prefers-reduced-motion: reduce")
	for name, text := range map[string][]byte{"index.html": html, "app.js": js, "style.css": css} {
		assert.NotRegexp(t, `(?i)(src|href)="(https?:)?//`, string(text), "%s loads nothing from elsewhere", name)
		assert.NotContains(t, string(text), "@import", name)
	}
}
