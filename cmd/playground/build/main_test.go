package main

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// TestPlaygroundPageLoadsTheRuntimeThenTheLoaderBeforeTheApp: the site's
// index.html is the demo's page with wasm_exec.js and playground.js ahead
// of app.js, so the page's script finds the playground at start.
// Diagram: none. client-go: none.
func TestPlaygroundPageLoadsTheRuntimeThenTheLoaderBeforeTheApp(t *testing.T) {
	page, err := fs.ReadFile(pipelineweb.Assets(), "index.html")
	require.NoError(t, err)

	out, err := playgroundPage(page)

	require.NoError(t, err)
	s := string(out)
	exec, loader, app := strings.Index(s, `src="wasm_exec.js"`), strings.Index(s, `src="playground.js"`), strings.Index(s, `src="app.js"`)
	assert.True(t, exec > 0 && exec < loader && loader < app, "wasm_exec.js, then playground.js, then app.js")
	_, err = playgroundPage([]byte("<html></html>"))
	assert.ErrorContains(t, err, "build: the page has no")
}
