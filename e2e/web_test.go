package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webScenarios are the page's scenarios, each run against both hosts
// (webHosts): the page served by `demo --web` and the playground's static
// site, where the pipeline runs in the tab. One table, so that the two
// cannot drift.
var webScenarios = []struct {
	name string
	run  func(t *testing.T, p *browserPage)
}{
	{"PageLoadsWithTheNineNumberedArrows", pageLoadsWithTheNineNumberedArrows},
	{"CreateFooShowsStepsOneToNineInOrder", createFooShowsStepsOneToNineInOrder},
	{"CompactShowsRelistWithReplacedDeltasAndATombstone", compactShowsRelistWithReplacedDeltasAndATombstone},
	{"FailingReconcileShowsRetriesWithGrowingDelays", failingReconcileShowsRetriesWithGrowingDelays},
	{"EveryControlIsReachableByTabAndWorksWithEnter", everyControlIsReachableByTabAndWorksWithEnter},
	{"HonoursPrefersReducedMotion", honoursPrefersReducedMotion},
}

// TestWebPageScenariosOnBothHosts runs every scenario of webScenarios on
// the page of `demo --web` and on the playground, each in a fresh browser
// and a fresh pipeline.
// Diagram: steps 1-9. client-go: none.
func TestWebPageScenariosOnBothHosts(t *testing.T) {
	for _, h := range webHosts {
		t.Run(h.name, func(t *testing.T) {
			for _, sc := range webScenarios {
				t.Run(sc.name, func(t *testing.T) {
					sc.run(t, openPageOn(t, h))
				})
			}
		})
	}
}

// pageLoadsWithTheNineNumberedArrows opens `demo --web` in chromium:
// the page loads with no console error, its SVG draws the nine numbered
// arrows of the diagram with their labels, and the initial list has already
// reached the boxes (both Reflectors watching, two objects cached).
// Diagram: steps 1-9. client-go: the controller diagram of sample-controller's docs.
func pageLoadsWithTheNineNumberedArrows(t *testing.T, p *browserPage) {

	steps := eval[[]string](t, p, `[...document.querySelectorAll('#diagram path.arrow[data-step]')].map(a => a.dataset.step)`)
	labels := eval[[]string](t, p, `[...document.querySelectorAll('#diagram text.alabel')].map(l => l.textContent)`)
	p.waitFor(t, "both Reflectors watching and two objects cached",
		`document.getElementById('refl-l1').textContent.includes('watching') && document.getElementById('refl-l2').textContent.includes('watching') && document.getElementById('store-l1').textContent.startsWith('2 ')`, 10*time.Second)
	p.screenshot(t, "page-loaded")

	assert.Equal(t, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, steps)
	for i, want := range []string{"1 List & Watch", "2 Add Object", "3 Pop Object", "4 Add Object", "5 Store Object & Key",
		"6 Dispatch event handler", "7 Enqueue key", "8 Get key", "9 Get Object for key"} {
		assert.Contains(t, labels, want, "label of arrow %d", i+1)
	}
	assert.Empty(t, p.consoleErrors())
}

// createFooShowsStepsOneToNineInOrder presses "Create Foo": within a
// few seconds the inspector shows the new Foo's key passing steps 1 to 9,
// each first reached after the one before, and a Reconcile outcome.
// Diagram: steps 1-9. client-go: sample-controller's Foo controller.
func createFooShowsStepsOneToNineInOrder(t *testing.T, p *browserPage) {

	p.setValue(t, "foo-name", "lab")
	p.click(t, "btn-create")
	p.waitFor(t, "steps 1 to 9 for Foo default/lab", `document.querySelectorAll('#steps-strip li.done').length === 9`, 5*time.Second)
	p.waitFor(t, "tokens on their way", `document.querySelectorAll('#tokens .token').length >= 3`, 5*time.Second)
	p.viewport(t, "create-foo-in-flight")
	p.waitFor(t, "a Reconcile outcome", `document.querySelector('#timeline li[data-op="reconcile"]') !== null`, 5*time.Second)
	p.screenshot(t, "create-foo")

	key := eval[string](t, p, `document.getElementById('inspect-key').value`)
	assert.Equal(t, "Foo default/lab", key)
	perEntry := eval[[]string](t, p, `[...document.querySelectorAll('#timeline li')].map(li => li.dataset.steps || '')`)
	first := map[string]int{}
	for i, steps := range perEntry {
		for _, s := range strings.Fields(steps) {
			if _, ok := first[s]; !ok {
				first[s] = i
			}
		}
	}
	for step := 2; step <= 9; step++ {
		prev, cur := string(rune('0'+step-1)), string(rune('0'+step))
		require.Contains(t, first, cur, "step %s never shown", cur)
		assert.LessOrEqual(t, first[prev], first[cur], "step %s shown before step %s: %v", cur, prev, perEntry)
	}
	tags := eval[[]string](t, p, `[...document.querySelectorAll('#timeline .tag')].map(s => s.textContent)`)
	for _, tag := range []string{"[1 list&watch]", "[2 → DeltaFIFO]", "[3 pop]", "[4/5 indexer]", "[6 handler]", "[7 enqueue]", "[8 get key]", "[9 lister get]", "[reconcile]"} {
		assert.Contains(t, tags, tag, "the inspector speaks the text demo's tags")
	}
	assert.Empty(t, p.consoleErrors())
}

// compactShowsRelistWithReplacedDeltasAndATombstone deletes a
// Deployment without a watch event, then compacts: the Reflectors back off
// and relist, the inspector shows the deleted key's Deleted delta holding a
// tombstone, and a surviving key's Replaced delta.
// Diagram: steps 1-3. client-go: Reflector relist on 410, DeltaFIFO.Replace.
func compactShowsRelistWithReplacedDeltasAndATombstone(t *testing.T, p *browserPage) {
	p.waitFor(t, "the seeded Deployment in the cache", `[...document.getElementById('silent-target').options].some(o => o.value === 'Deployment|default/alpha-nginx')`, 10*time.Second)

	p.setValue(t, "silent-target", "Deployment|default/alpha-nginx")
	p.click(t, "btn-silent-delete")
	p.waitFor(t, "the silent delete", `document.getElementById('control-msg').textContent.includes('without a watch event')`, 5*time.Second)
	p.click(t, "btn-compact")
	p.waitFor(t, "both Reflectors to relist", `document.getElementById('refl-l3').textContent === 'relists so far: 2'`, 10*time.Second)
	p.waitFor(t, "the tombstone in the inspector", `document.querySelector('#timeline li[data-op="pop"][data-tombstone]') !== null`, 10*time.Second)
	p.screenshot(t, "compact-tombstone")

	key := eval[string](t, p, `document.getElementById('inspect-key').value`)
	reflectors := eval[string](t, p, `document.getElementById('reflectors').textContent`)
	assert.Equal(t, "Deployment default/alpha-nginx", key)
	assert.Contains(t, reflectors, "backing off to relist")
	assert.Equal(t, 1, p.count(t, `#timeline li[data-op="queued"][data-tombstone]`), "Replace queued one tombstone")
	p.setValue(t, "inspect-key", "Foo default/alpha")
	assert.GreaterOrEqual(t, p.count(t, `#timeline li[data-op="pop"][data-deltas="Replaced"]`), 2,
		"Foo default/alpha popped as Replaced by the initial list and by the relist")
	assert.Empty(t, p.consoleErrors())
}

// failingReconcileShowsRetriesWithGrowingDelays makes the API server
// fail the controller's patches: the inspector shows each failed Reconcile
// requeued with AddRateLimited after a longer delay than the one before,
// then a success.
// Diagram: steps 7-8. client-go: workqueue.ItemExponentialFailureRateLimiter.
func failingReconcileShowsRetriesWithGrowingDelays(t *testing.T, p *browserPage) {
	p.click(t, "btn-create")
	p.waitFor(t, "Foo default/web to be reconciled", `document.querySelectorAll('#steps-strip li.done').length === 9 && document.querySelector('#timeline li[data-op="reconcile"]') !== null`, 5*time.Second)

	p.click(t, "btn-fail")
	p.waitFor(t, "seven retries", `document.querySelectorAll('#timeline li[data-op="backoff"]').length >= 7`, 10*time.Second)
	p.waitFor(t, "the workqueue panel to show a retry's next attempt", `document.getElementById('queues').textContent.includes('next attempt at')`, 5*time.Second)
	p.screenshot(t, "retry-waiting")
	p.waitFor(t, "the Reconcile to succeed after its failures",
		`(() => { const l = [...document.querySelectorAll('#timeline li[data-op="reconcile"]')].pop(); return l && !l.classList.contains('error') && document.querySelectorAll('#timeline li[data-op="backoff"]').length >= 10; })()`, 15*time.Second)
	p.screenshot(t, "retry-backoff")

	delays := eval[[]float64](t, p, `[...document.querySelectorAll('#timeline li[data-op="backoff"]')].map(li => Number(li.dataset.delay))`)
	require.GreaterOrEqual(t, len(delays), 4)
	for i := 1; i < len(delays); i++ {
		assert.Greater(t, delays[i], delays[i-1], "each retry waits longer: %v", delays)
	}
	queues := eval[string](t, p, `document.getElementById('queues').textContent`)
	assert.Contains(t, queues, "error 10", "the workqueue panel counts the failed Reconciles")
	assert.Empty(t, p.consoleErrors())
}

// everyControlIsReachableByTabAndWorksWithEnter walks the page with
// Tab alone: every control is reached, in order; Enter on each button
// carries out its action (the page answers in its status line); a cached
// object opens with Enter and its dialog closes with Escape.
// Diagram: none. client-go: none.
func everyControlIsReachableByTabAndWorksWithEnter(t *testing.T, p *browserPage) {
	p.waitFor(t, "cached objects", `document.querySelector('#cache button.obj') !== null`, 10*time.Second)
	controls := eval[[]string](t, p, `[...document.querySelectorAll('#controls button, #controls input, #controls select')].filter(e => e.offsetParent !== null).map(e => e.id)`)
	require.Len(t, controls, 20)

	var visited []string
	var answers = map[string]string{}
	eval[bool](t, p, `document.activeElement.blur(), true`)
	for range 80 {
		p.key(t, kb.Tab)
		id := eval[string](t, p, `document.activeElement.id || document.activeElement.dataset.focus || document.activeElement.tagName`)
		visited = append(visited, id)
		if eval[bool](t, p, `document.activeElement.closest('#controls') !== null && document.activeElement.tagName === 'BUTTON'`) {
			eval[bool](t, p, `document.getElementById('control-msg').textContent = '', true`)
			p.key(t, kb.Enter)
			p.waitFor(t, "an answer to Enter on #"+id, `document.getElementById('control-msg').textContent !== ''`, 5*time.Second)
			answers[id] = eval[string](t, p, `document.getElementById('control-msg').textContent`)
		}
		if strings.HasPrefix(id, "Foo ") || strings.HasPrefix(id, "Deployment ") {
			break // the first cached object's button: past every control
		}
	}
	p.screenshot(t, "keyboard")

	last := -1
	for _, c := range controls {
		i := slices.Index(visited, c)
		require.GreaterOrEqual(t, i, 0, "Tab never reached #%s; visited %v", c, visited)
		assert.Greater(t, i, last, "#%s reached out of order", c)
		last = i
	}
	assert.Contains(t, answers["btn-create"], "Foo default/web created")
	assert.Contains(t, answers["btn-close-watches"], "closed every open watch")
	assert.Contains(t, answers["btn-pause"], "paused")
	assert.Contains(t, answers["btn-step"], "let through")
	for _, c := range controls {
		if strings.HasPrefix(c, "btn-") {
			assert.NotEmpty(t, answers[c], "Enter on #%s did nothing", c)
		}
	}

	p.key(t, kb.Enter)
	p.waitFor(t, "the object's YAML", `document.getElementById('object-dialog').open && document.getElementById('object-yaml').textContent.includes('resourceVersion')`, 5*time.Second)
	p.screenshot(t, "object-yaml")
	p.key(t, kb.Escape)
	p.waitFor(t, "the dialog to close", `!document.getElementById('object-dialog').open`, 5*time.Second)
	assert.Empty(t, p.consoleErrors())
}

// TestWebOnAClusterHidesTheFaultsThatNeedFakeapi runs `demo --web
// --kubeconfig` against cmd/fakeapi serving Foos, as against a real
// cluster: the page names the server, hides the faults and scenarios
// (they need the embedded fakeapi), and a Foo created from the page still
// crosses steps 1 to 9.
// Diagram: steps 1-9. client-go: none.
func TestWebOnAClusterHidesTheFaultsThatNeedFakeapi(t *testing.T) {
	api := startFakeapi(t, "--sample-resources")
	p := openPage(t, startWebDemo(t, "--kubeconfig", api.Kubeconfig))

	p.setValue(t, "foo-name", "remote")
	p.click(t, "btn-create")
	p.waitFor(t, "steps 1 to 9 for Foo default/remote", `document.querySelectorAll('#steps-strip li.done').length === 9`, 10*time.Second)
	p.screenshot(t, "cluster")

	mode := eval[string](t, p, `document.getElementById('mode').textContent`)
	assert.Equal(t, "the cluster at "+api.URL, mode)
	assert.True(t, eval[bool](t, p, `document.getElementById('faults').hidden && document.getElementById('scenarios').hidden`))
	assert.Empty(t, p.consoleErrors())
}

// honoursPrefersReducedMotion creates a Foo with reduced motion
// asked for: no token travels; the arrows light up instead, and the
// inspector still shows steps 1 to 9.
// Diagram: steps 1-9. client-go: none.
func honoursPrefersReducedMotion(t *testing.T, p *browserPage) {
	p.reduceMotion(t)
	require.True(t, eval[bool](t, p, `matchMedia('(prefers-reduced-motion: reduce)').matches`))
	eval[bool](t, p, `(() => {
		window.tokensAdded = 0; window.arrowsLit = 0;
		new MutationObserver((ms) => ms.forEach((m) => { window.tokensAdded += m.addedNodes.length; })).observe(document.getElementById('tokens'), {childList: true});
		new MutationObserver((ms) => ms.forEach((m) => { if (m.target.classList.contains('active')) window.arrowsLit++; })).observe(document.querySelector('#diagram .arrows'), {attributes: true, subtree: true, attributeFilter: ['class']});
		return true; })()`)

	p.click(t, "btn-create")
	p.waitFor(t, "steps 1 to 9 for Foo default/web", `document.querySelectorAll('#steps-strip li.done').length === 9`, 5*time.Second)
	p.screenshot(t, "reduced-motion")

	assert.Zero(t, eval[int](t, p, `window.tokensAdded`), "no token moves")
	assert.Positive(t, eval[int](t, p, `window.arrowsLit`), "the arrows light up instead")
	assert.Empty(t, p.consoleErrors())
}
