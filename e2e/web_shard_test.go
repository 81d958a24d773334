package e2e

import (
	"fmt"
	"testing"
	"time"

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
// survivors, whose lanes show the relists that brought its Foos, and the
// overlap counter stays at 0 throughout. Each lane shows its queue and its
// Deployment cache, and a line under the tiles how many buckets each
// replica holds.
// Diagram: none (the ring of replicas). client-go: none.
func TestWebReplicasViewShowsThreeHoldersThenTwoAfterAKill(t *testing.T) {
	replicasViewThreeThenTwo(t, openPage(t, startWebDemo(t, "--shards", "3")))
}

// TestPlaygroundReplicasViewShowsThreeHoldersThenTwoAfterAKill: the same
// page and the same steps in the playground, with ?shards=3 in its
// address: the three replicas run in the browser tab, compiled to
// WebAssembly.
// Diagram: none (the ring of replicas). client-go: none.
func TestPlaygroundReplicasViewShowsThreeHoldersThenTwoAfterAKill(t *testing.T) {
	replicasViewThreeThenTwo(t, openPageOn(t, webHost{name: "playground",
		start:         func(t *testing.T) string { return servePlayground(t) + "?shards=3" },
		connectWithin: 60 * time.Second}))
}

// replicasViewThreeThenTwo walks the replicas view of three replicas
// through a kill, on p.
func replicasViewThreeThenTwo(t *testing.T, p *browserPage) {
	p.waitFor(t, "the replicas view", `!document.getElementById('replicas').hidden`, 10*time.Second)
	p.waitFor(t, "the single pipeline's diagram, controls, log and inspector hidden: nothing drives them here",
		`['controls', 'inspector', 'diagram-section', 'log-section', 'boxes'].every((id) => document.getElementById(id).hidden)`, 10*time.Second)
	p.waitFor(t, "sixteen tiles held by three replicas", distinctHolders+` === 3`, 30*time.Second)
	p.screenshot(t, "replicas-three")
	assert.Equal(t, 3, p.count(t, "#replica-lanes li"))
	p.waitFor(t, "each lane shows its queue, its Deployment cache and its relists",
		`[...document.querySelectorAll('#replica-lanes li')].every((li) => /\d+ queued/.test(li.textContent) && /\d+ Deployments cached/.test(li.textContent) && /relists: [1-9]/.test(li.textContent))`, 10*time.Second)
	// The ring of replica-0, -1 and -2 over sixteen buckets: the even
	// split docs/sharding.md quotes.
	p.waitFor(t, "the buckets each replica holds", `document.getElementById('bucket-counts').textContent === 'replica-0: 6 · replica-1: 5 · replica-2: 5'`, 30*time.Second)
	// The demo creates twelve Foos; relists reads a lane's relist count.
	relists := func(name string) string {
		return `Number(document.querySelector('#replica-lanes li[data-name="` + name + `"] .lane-relists').textContent.match(/relists: (\d+)/)[1])`
	}
	before := eval[float64](t, p, relists("replica-1")+" + "+relists("replica-2"))

	p.clickFirst(t, `#replica-lanes li[data-name="replica-0"] button.kill`)
	p.waitFor(t, "replica-0 dead", `document.querySelector('#replica-lanes li[data-name="replica-0"]').classList.contains('dead')`, 10*time.Second)
	p.waitFor(t, "the countdown to the Leases' expiry", `document.querySelector('#replica-lanes li[data-name="replica-0"]').textContent.includes('its Leases expire in')`, 10*time.Second)
	p.waitFor(t, "sixteen tiles held by the two survivors", distinctHolders+` === 2 && ![...document.querySelectorAll('#bucket-tiles li')].some((t) => t.dataset.holder === 'replica-0')`, 30*time.Second)
	p.waitFor(t, "the survivors' relists: more of them, a lane lit up, and every Foo in their caches", relists("replica-1")+" + "+relists("replica-2")+` > `+fmt.Sprint(before)+
		` && [...document.querySelectorAll('#replica-lanes li.relisting .lane-relists')].some((s) => /last \+\d+( −\d+)? Foos \d+\.\d s ago/.test(s.textContent))`+
		` && [...document.querySelectorAll('#replica-lanes li:not(.dead) .lane-text')].reduce((n, s) => n + Number(s.textContent.match(/(\d+) Foos,/)[1]), 0) === 12`, 10*time.Second)
	p.screenshot(t, "replicas-two")
	p.waitFor(t, "the survivors' queues drained", `[...document.querySelectorAll('#replica-lanes li:not(.dead)')].every((li) => li.textContent.includes(' 0 queued'))`, 30*time.Second)
	assert.Contains(t, eval[string](t, p, `document.getElementById('bucket-counts').textContent`), "replica-0: 0", "the dead replica holds nothing")

	assert.Equal(t, "0", eval[string](t, p, `document.getElementById('overlaps').textContent`), "no two replicas reconciled one key at once")
	assert.Empty(t, p.consoleErrors())
}
