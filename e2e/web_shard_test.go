package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
)

// distinctHolders is the page's count of distinct live holders among its
// bucket tiles, and -1 until all sixteen tiles have one.
const distinctHolders = `(() => {
  const tiles = [...document.querySelectorAll('#bucket-tiles li')];
  if (tiles.length !== 16 || tiles.some((t) => !t.dataset.holder)) return -1;
  return new Set(tiles.map((t) => t.dataset.holder)).size;
})()`

// TestWebReplicasViewShowsThreeHoldersThenTwoAfterAKill opens the page of
// `demo --web --shards 3`: the sixteen bucket tiles, read from the bucket
// Leases, settle on three holders; "Kill a replica" on replica-0 makes its
// lane counts down to its Leases' expiry, its tiles go to the two
// survivors, and the overlap counter stays at 0 throughout.
// Diagram: none (the ring of replicas). client-go: none.
func TestWebReplicasViewShowsThreeHoldersThenTwoAfterAKill(t *testing.T) {
	url := startWebDemo(t, "--shards", "3")
	p := openPage(t, url)

	p.waitFor(t, "the replicas view", `!document.getElementById('replicas').hidden`, 10*time.Second)
	p.waitFor(t, "the single pipeline's diagram, controls, log and inspector hidden: nothing drives them here",
		`['controls', 'inspector', 'diagram-section', 'log-section', 'boxes'].every((id) => document.getElementById(id).hidden)`, 10*time.Second)
	p.waitFor(t, "sixteen tiles held by three replicas", distinctHolders+` === 3`, 30*time.Second)
	p.screenshot(t, "replicas-three")
	assert.Equal(t, 3, p.count(t, "#replica-lanes li"))

	p.do(t, 5*time.Second, chromedp.Click(chromedp.CSS(`#replica-lanes li[data-name="replica-0"] button.kill`)))
	p.waitFor(t, "replica-0 dead", `document.querySelector('#replica-lanes li[data-name="replica-0"]').classList.contains('dead')`, 10*time.Second)
	p.waitFor(t, "the countdown to the Leases' expiry", `document.querySelector('#replica-lanes li[data-name="replica-0"]').textContent.includes('its Leases expire in')`, 10*time.Second)
	p.waitFor(t, "sixteen tiles held by the two survivors", distinctHolders+` === 2 && ![...document.querySelectorAll('#bucket-tiles li')].some((t) => t.dataset.holder === 'replica-0')`, 30*time.Second)
	p.screenshot(t, "replicas-two")

	assert.Equal(t, "0", eval[string](t, p, `document.getElementById('overlaps').textContent`), "no two replicas reconciled one key at once")
	assert.Empty(t, p.consoleErrors())
}
