// informerlab pipeline page: plain JavaScript, no build step, no network
// beyond this server. It listens to the pipeline's event stream, moves a
// token along the arrow of every event, keeps a timeline per key for the
// inspector, and renders the state snapshots into the boxes and panels.
//
// It runs on either of two hosts, and picks its transport at start: the
// server of `demo --web` (Server-Sent Events from /api/events, POST
// /api/control, GET /api/object), or the playground, where the pipeline
// runs in this tab as WebAssembly (cmd/playground) and the same three
// operations are calls into it. Everything else is the same.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const MAX_TIMELINE = 400;
  // MAX_KEYS bounds the timelines kept: past it, the key whose timeline
  // began longest ago goes (unless it is the one inspected), so that a page
  // open for hours keeps its memory bounded.
  const MAX_KEYS = 300;
  const MAX_LOG = 300;
  const MAX_TOKENS = 60;

  let info = null;
  let lastSeq = 0;
  let speed = 1;
  let snap = null;
  let received = 0;
  let droppedTotal = 0;
  let connected = false;
  const timelines = new Map(); // "Kind namespace/name" -> events, oldest first
  let selected = '';
  let pendingSelect = '';

  // ---- events -------------------------------------------------------------

  // stepsOf returns the numbered steps an event shows, for the inspector.
  function stepsOf(e) {
    switch (e.arrow) {
      case '1': return [1];
      case '2': return [2];
      case '3': return [3];
      case '4-5': return [4, 5];
      case '6': return [6];
      case '7': return [7];
      case '8': return [8];
      case '9': return [9];
    }
    return e.op === 'handler' ? [6] : [];
  }

  function tagClass(tag) {
    const m = /^(\d)/.exec(tag || '');
    if (m) return 't' + m[1];
    if (tag === 'reconcile') return 'tr';
    if (tag === 'API write') return 'tw';
    return 'ts';
  }

  // The text demo shows only the Deployment simulator's writes: it plays
  // kube-controller-manager, not the controller being taught.
  function quiet(e) {
    return e.controller === 'deployment-simulator' && e.op !== 'api-write';
  }

  function keyId(e) { return e.kind && e.key ? e.kind + ' ' + e.key : ''; }

  function fmtTime(ms) {
    const d = new Date(ms);
    const p = (n, w) => String(n).padStart(w, '0');
    return p(d.getHours(), 2) + ':' + p(d.getMinutes(), 2) + ':' + p(d.getSeconds(), 2) + '.' + p(d.getMilliseconds(), 3);
  }

  function fmtMs(ms) {
    if (ms >= 1000) return (ms / 1000).toFixed(ms >= 10000 ? 0 : 1) + 's';
    return (Math.round(ms * 10) / 10) + 'ms';
  }

  function entry(e) {
    const li = document.createElement('li');
    li.dataset.seq = e.seq;
    li.dataset.op = e.op;
    const steps = stepsOf(e);
    if (steps.length) li.dataset.steps = steps.join(' ');
    if (e.deltas) li.dataset.deltas = e.deltas.join(' ');
    if (e.tombstone) li.dataset.tombstone = 'true';
    if (e.op === 'backoff') li.dataset.delay = e.delayMs;
    if (e.op === 'fault' || e.op === 'story' || e.op === 'control') li.className = 'fault';
    if (e.err || e.verb === 'error') li.classList.add('error');
    const t = document.createElement('time');
    t.textContent = fmtTime(e.t);
    const tag = document.createElement('span');
    tag.className = 'tag ' + tagClass(e.tag);
    tag.textContent = '[' + (e.tag || e.op) + ']';
    li.append(t, tag, document.createTextNode(e.text));
    return li;
  }

  function handle(e, live) {
    if (e.seq <= lastSeq) return;
    lastSeq = e.seq;
    received++;
    if (quiet(e)) return;
    const id = keyId(e);
    if (id) {
      let tl = timelines.get(id);
      if (!tl) {
        tl = [];
        timelines.set(id, tl);
        keysChanged = true;
        for (const old of timelines.keys()) {
          if (timelines.size <= MAX_KEYS) break;
          if (old !== selected && old !== id) timelines.delete(old);
        }
      }
      tl.push(e);
      if (tl.length > MAX_TIMELINE) tl.shift();
      if (pendingSelect === id) {
        pendingSelect = '';
        select(id);
      } else if (id === selected && live) {
        appendTimeline(e);
      }
    }
    if (live) {
      addLog(e);
      if (e.arrow || e.op === 'you') animate(e);
    }
  }

  // ---- log ----------------------------------------------------------------

  function addLog(e) {
    const log = $('log');
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    log.append(entry(e));
    while (log.children.length > MAX_LOG) log.firstElementChild.remove();
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  function note(text, cls) {
    addLog({ seq: 0, t: Date.now(), op: cls || 'control', tag: 'page', text });
  }

  // ---- tokens -------------------------------------------------------------

  const paths = {
    '1': ['arrow-1'], '2': ['arrow-2'], '3': ['arrow-3'], '4-5': ['arrow-4', 'arrow-5'],
    '6': ['arrow-6'], '7': ['arrow-7'], '8': ['arrow-8'], '9': ['arrow-9'],
    write: ['arrow-write'], retry: ['arrow-retry'], you: ['arrow-you'],
  };
  const dest = {
    'arrow-1': 'box-reflector', 'arrow-2': 'box-fifo', 'arrow-3': 'box-informer', 'arrow-4': 'box-indexer',
    'arrow-5': 'box-store', 'arrow-6': 'box-handlers', 'arrow-7': 'box-queue', 'arrow-8': 'box-worker',
    'arrow-9': 'box-indexer', 'arrow-write': 'box-api', 'arrow-retry': 'box-queue', 'arrow-you': 'box-api',
  };
  const colour = {
    'arrow-1': '--s1', 'arrow-2': '--s2', 'arrow-3': '--s3', 'arrow-4': '--s4', 'arrow-5': '--s5',
    'arrow-6': '--s6', 'arrow-7': '--s7', 'arrow-8': '--s8', 'arrow-9': '--s9', 'arrow-write': '--sw',
    'arrow-retry': '--s7', 'arrow-you': '--sw',
  };
  let alive = 0;

  function flash(el, ms) {
    if (!el) return;
    el.classList.add(el.tagName === 'path' ? 'active' : 'flash');
    setTimeout(() => el.classList.remove('active', 'flash'), ms);
  }

  function label(e) {
    if (e.key) return e.key.split('/').pop();
    return e.kind ? e.kind + 's' : '';
  }

  // nextFree is, per arrow, when the next token may set off: tokens on one
  // arrow follow each other instead of hiding each other.
  const nextFree = {};

  function animate(e) {
    const ids = paths[e.op === 'you' ? 'you' : e.arrow];
    if (!ids) return;
    const now = performance.now();
    const at = Math.max(now, nextFree[ids[0]] || 0);
    if (reduceMotion.matches || alive >= MAX_TOKENS || document.hidden || at - now > 3000) {
      for (const id of ids) { flash($(id), 700); flash($(dest[id]), 700); }
      return;
    }
    nextFree[ids[0]] = at + 160 / speed;
    alive++;
    setTimeout(() => travel(e, ids), at - now);
  }

  function travel(e, ids) {
    const style = getComputedStyle(document.documentElement);
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    g.setAttribute('class', 'token');
    const c = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
    c.setAttribute('r', '8');
    c.setAttribute('fill', style.getPropertyValue(colour[ids[0]]).trim() || '#333');
    const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    t.setAttribute('x', '12');
    t.setAttribute('y', '4');
    t.textContent = label(e);
    g.append(c, t);
    $('tokens').append(g);
    // For whoever measures the page (the playground's budget test): when
    // the first token set off, on the page's own clock.
    if (!performance.getEntriesByName('informerlab:first-token').length) performance.mark('informerlab:first-token');
    const leg = 900 / speed;
    let i = 0;
    let start = performance.now();
    let path = $(ids[0]);
    let len = path.getTotalLength();
    const frame = (now) => {
      const f = Math.min(1, (now - start) / leg);
      const p = path.getPointAtLength(len * f);
      g.setAttribute('transform', 'translate(' + p.x + ',' + p.y + ')');
      if (f < 1) { requestAnimationFrame(frame); return; }
      flash($(dest[ids[i]]), 400);
      i++;
      if (i < ids.length) {
        path = $(ids[i]);
        len = path.getTotalLength();
        start = now;
        requestAnimationFrame(frame);
        return;
      }
      g.remove();
      alive--;
    };
    requestAnimationFrame(frame);
  }

  // ---- inspector ----------------------------------------------------------

  let keysChanged = false;

  function kindRank(id) {
    if (id.startsWith('Foo ')) return 0;
    if (id.startsWith('Deployment ')) return 1;
    return 2;
  }

  function renderKeys() {
    if (!keysChanged) return;
    keysChanged = false;
    const sel = $('inspect-key');
    const ids = [...timelines.keys()].sort((a, b) => kindRank(a) - kindRank(b) || a.localeCompare(b));
    const had = sel.value;
    sel.replaceChildren();
    const none = document.createElement('option');
    none.value = '';
    none.textContent = '(choose a key)';
    sel.append(none);
    for (const id of ids) {
      const o = document.createElement('option');
      o.value = id;
      o.textContent = id;
      sel.append(o);
    }
    sel.value = selected || had;
  }

  function select(id) {
    selected = id;
    keysChanged = true;
    renderKeys();
    $('inspect-key').value = id;
    renderTimeline();
  }

  function renderTimeline() {
    const tl = timelines.get(selected) || [];
    const ol = $('timeline');
    ol.replaceChildren(...tl.map(entry));
    $('inspect-hint').textContent = selected
      ? tl.length + ' event(s) for ' + selected + ', oldest first.'
      : 'Choose a key to see its timeline through the nine steps and every Reconcile outcome.';
    renderStrip();
    ol.scrollTop = ol.scrollHeight;
  }

  function appendTimeline(e) {
    const ol = $('timeline');
    const atBottom = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 8;
    ol.append(entry(e));
    while (ol.children.length > MAX_TIMELINE) ol.firstElementChild.remove();
    if (atBottom) ol.scrollTop = ol.scrollHeight;
    renderStrip();
    $('inspect-hint').textContent = ol.children.length + ' event(s) for ' + selected + ', oldest first.';
  }

  function renderStrip() {
    const seen = new Set();
    for (const e of timelines.get(selected) || []) for (const s of stepsOf(e)) seen.add(s);
    for (const li of $('steps-strip').children) li.classList.toggle('done', seen.has(Number(li.dataset.step)));
  }

  // ---- state --------------------------------------------------------------

  const rendered = new Map();

  // put sets a container's HTML when it changed, keeping keyboard focus on
  // the element with the same data-focus value.
  function put(id, html) {
    if (rendered.get(id) === html) return;
    rendered.set(id, html);
    const el = $(id);
    const focus = el.contains(document.activeElement) ? document.activeElement.dataset.focus : null;
    el.innerHTML = html;
    if (focus) {
      const again = el.querySelector('[data-focus="' + CSS.escape(focus) + '"]');
      if (again) again.focus();
    }
  }

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const chips = (keys, cls) => keys && keys.length
    ? '<div class="chips">' + keys.map((k) => '<span class="chip ' + (cls || '') + '">' + esc(k) + '</span>').join('') + '</div>'
    : '<div class="chips"><span class="empty">none</span></div>';
  const text = (id, s) => { const el = $(id); if (el && el.textContent !== s) el.textContent = s; };

  // relistGlowMS is how long a lane stays lit after a relist.
  const relistGlowMS = 3000;

  // renderReplicas draws the ring of sharded replicas (demo --web --shards
  // N): a lane per replica, a tile per bucket coloured by its Lease's
  // holder, and the overlap counter.
  function renderReplicas(r) {
    const section = $('replicas');
    if (!r) { section.hidden = true; return; }
    section.hidden = false;
    // The sharded demo runs no single pipeline to draw or drive: the
    // diagram, its controls, the log and the key inspector would stay empty.
    for (const id of ['controls', 'inspector', 'diagram-section', 'log-section', 'boxes']) {
      const el = $(id);
      if (el && !el.hidden) el.hidden = true;
    }
    const names = r.lanes.map((l) => l.name);
    const lanes = $('replica-lanes');
    r.lanes.forEach((l, i) => {
      let li = lanes.children[i];
      if (!li) {
        li = document.createElement('li');
        li.innerHTML = '<span class="lane-text"></span> <span class="lane-relists"></span> <button type="button" class="kill">Kill a replica</button>';
        li.querySelector('button').addEventListener('click', () => {
          const name = li.dataset.name;
          act('kill-replica', { name }).then((ok) => {
            if (ok) $('replica-msg').textContent = name + ' killed: its buckets go grey once its member Lease expires, then to the survivors';
          });
        });
        lanes.append(li);
      }
      li.dataset.name = l.name;
      // A relist in the last few seconds lights the lane up: the burst of
      // Foos a gain of buckets brings.
      const fresh = l.alive && l.relists > 0 && (l.lastRelistAgoMs || 0) < relistGlowMS;
      li.className = 'h' + i + (l.alive ? '' : ' dead') + (fresh ? ' relisting' : '');
      const t = l.alive
        ? l.name + ': ' + (l.held || []).length + ' buckets · ' + l.cached + ' Foos, ' + l.deployments + ' Deployments cached · ' +
          l.queue + ' queued · ' + l.inFlight + ' reconciling'
        : l.name + ': dead for ' + (l.deadForMs / 1000).toFixed(1) + ' s' + (l.deadForMs < r.leaseDurationMs
          ? ' · its Leases expire in ' + ((r.leaseDurationMs - l.deadForMs) / 1000).toFixed(1) + ' s at most'
          : ' · its Leases have expired: the survivors take its buckets and relist');
      const span = li.querySelector('.lane-text');
      if (span.textContent !== t) span.textContent = t;
      const rt = !l.alive ? '' : l.relists === 0 ? 'relists: 0'
        : 'relists: ' + l.relists + ' · last +' + l.lastRelistAdded + (l.lastRelistDeleted ? ' −' + l.lastRelistDeleted : '') +
          ' Foos ' + ((l.lastRelistAgoMs || 0) / 1000).toFixed(1) + ' s ago';
      const rspan = li.querySelector('.lane-relists');
      if (rspan.textContent !== rt) rspan.textContent = rt;
      li.querySelector('button').disabled = !l.alive;
      li.querySelector('button').setAttribute('aria-label', 'kill ' + l.name);
    });
    const tiles = $('bucket-tiles');
    r.holders.forEach((h, b) => {
      let li = tiles.children[b];
      if (!li) { li = document.createElement('li'); tiles.append(li); }
      const i = names.indexOf(h);
      li.className = i >= 0 ? 'h' + i : 'none';
      li.dataset.holder = h;
      const t = b + ': ' + (h || '—');
      if (li.textContent !== t) li.textContent = t;
    });
    // How many buckets each replica holds, by the Leases: rendezvous
    // hashing over few buckets is uneven.
    const held = names.map((n) => n + ': ' + r.holders.filter((h) => h === n).length);
    const free = r.holders.filter((h) => !names.includes(h)).length;
    text('bucket-counts', held.join(' · ') + (free ? ' · no live holder: ' + free : ''));
    text('overlaps', String(r.overlaps));
  }

  function renderState(s) {
    snap = s;
    renderReplicas(s.status.replicas);
    const refl = s.reflectors || [];
    const fifo = s.fifo || [];
    const cache = s.cache || [];
    const handlers = s.handlers || [];
    const queues = s.queues || [];
    const foo = queues.find((q) => q.controller === 'foo') || null;

    // The boxes of the diagram.
    text('api-l1', info ? info.mode : '');
    text('api-l2', (s.status.serverRV ? 'resourceVersion ' + s.status.serverRV : '') +
      (s.status.latencyMs ? ' · latency ' + fmtMs(s.status.latencyMs) : '') +
      (s.valve.paused ? ' · PAUSED, ' + s.valve.held + ' held' : ''));
    refl.slice(0, 2).forEach((r, i) => text('refl-l' + (i + 1), r.kind + 's: ' + r.state + ' · rv ' + (r.lastSyncRV || '–')));
    const relists = refl.reduce((n, r) => n + r.relists, 0);
    text('refl-l3', 'relists so far: ' + relists);
    const byKind = (kind) => fifo.filter((f) => f.kind === kind);
    text('fifo-l1', 'Foo keys: ' + byKind('Foo').length + ' · Deployment keys: ' + byKind('Deployment').length);
    const lastPop = (s.popped || [])[0];
    text('fifo-l2', fifo.length ? fifo.slice(0, 2).map((f) => f.key.split('/').pop() + ' [' + f.deltas.join(' ') + ']').join(', ')
      : 'empty: the process loop keeps up');
    if (!fifo.length && lastPop) text('fifo-l3', 'last pop: ' + lastPop.key.split('/').pop() + ' [' + (lastPop.deltas || []).join(' ') + ']');
    if (fifo.length || !lastPop) text('fifo-l3', fifo.length > 2 ? '… and ' + (fifo.length - 2) + ' more' : '');
    const count = (kind) => cache.filter((c) => c.kind === kind).length;
    text('idx-l1', 'Foos: ' + count('Foo') + ' · Deployments: ' + count('Deployment'));
    text('idx-l2', 'keyed namespace/name');
    text('store-l1', s.cacheTotal + ' object(s) cached');
    text('store-l2', 'read by listers (step 9)');
    handlers.slice(0, 2).forEach((h, i) => text('hd-l' + (i + 1), h.kind + ': ' + h.received + ' handled · backlog ' + h.backlog));
    text('hd-l3', s.slowHandlerMs ? 'slow: +' + fmtMs(s.slowHandlerMs) + ' a call' : '');
    if (foo) {
      text('q-l1', 'waiting ' + foo.waiting.length + ' · processing ' + foo.processing.length);
      text('q-l2', 'dirty ' + foo.dirty.length + ' · retries ' + (foo.retries || []).length);
      const r = (foo.retries || [])[0];
      text('q-l3', r ? r.key.split('/').pop() + ': failure #' + r.failures + ', waits ' + fmtMs(r.delayMs) : '');
      text('w-l1', foo.busy ? 'busy: ' + foo.busy : 'idle');
      text('w-l2', 'done ' + (foo.outcomes.done || 0) + ' · errors ' + (foo.outcomes.error || 0));
      const last = foo.last ? foo.last.split(': ').slice(1).join(': ') : '';
      text('w-l3', last.length > 27 ? last.slice(0, 26) + '…' : last);
    }

    // The panels.
    put('reflectors', refl.length ? refl.map((r) => '<h4>' + esc(r.kind) + 's</h4><p><strong>' + esc(r.state) + '</strong> since ' + fmtTime(r.since) +
        (r.cause ? ' <span class="hint">(' + esc(r.cause) + ')</span>' : '') + '</p>' +
        '<p>last synced rv ' + esc(r.lastSyncRV || '–') + ' · lists ' + r.lists + (r.relists ? ' (' + r.relists + ' relist' + (r.relists > 1 ? 's' : '') + ')' : '') +
        ' · watches ' + r.watches + ' · watch events ' + r.events + (r.backoffMs ? ' · last backoff ' + fmtMs(r.backoffMs) : '') + '</p>' +
        '<p class="hint">' + esc((r.recent || []).join(' → ')) + '</p>').join('')
      : '<p class="empty">not started</p>');
    const popped = s.popped || [];
    put('fifo', (fifo.length ? '<table><thead><tr><th>waiting key</th><th>Deltas, oldest first</th></tr></thead><tbody>' +
      fifo.map((f) => '<tr><td>' + esc(f.kind + ' ' + f.key) + '</td><td>' + esc(f.deltas.join(' ')) + '</td></tr>').join('') + '</tbody></table>'
      : '<p class="empty">empty: the process loop pops each key as soon as it is queued</p>') +
      (popped.length ? '<h4>Last popped, newest first</h4><p class="hint">A key queued several times before its pop hands all its Deltas over at once.</p><table><tbody>' +
        popped.map((f) => '<tr><td>' + esc(f.kind + ' ' + f.key) + '</td><td>[' + esc((f.deltas || []).join(' ')) + ']</td></tr>').join('') + '</tbody></table>' : ''));
    put('cache', '<p class="hint">' + s.cacheTotal + ' object(s). Open one to read it as the cache holds it.</p>' +
      (cache.length ? '<table><thead><tr><th>object</th><th>rv</th><th>gen.</th></tr></thead><tbody>' +
        cache.map((c) => '<tr><td><button type="button" class="obj" data-kind="' + esc(c.kind) + '" data-key="' + esc(c.key) +
          '" data-focus="' + esc(c.kind + ' ' + c.key) + '">' + esc(c.kind + ' ' + c.key) + '</button>' + (c.deleting ? ' (deleting)' : '') +
          '</td><td>' + esc(c.rv) + '</td><td>' + c.generation + '</td></tr>').join('') + '</tbody></table>' : ''));
    put('handlers', (handlers.length ? '<table><thead><tr><th>informer</th><th>handled</th><th>backlog</th></tr></thead><tbody>' +
      handlers.map((h) => '<tr><td>' + esc(h.kind) + '</td><td>' + h.received + '</td><td>' + h.backlog + '</td></tr>').join('') + '</tbody></table>' : '') +
      '<p class="hint">' + (s.slowHandlerMs ? 'Each handler call takes ' + fmtMs(s.slowHandlerMs) + ' more: notifications wait in the handler\'s buffer (the backlog); the informer and the DeltaFIFO do not wait for it.'
        : 'Each handler has its own goroutine and an unbounded buffer: a slow one never holds up the others.') + '</p>');
    const ordered = [...queues].sort((a, b) => (a.controller === 'foo' ? -1 : 0) - (b.controller === 'foo' ? -1 : 0));
    put('queues', ordered.length ? '<div class="cols">' + ordered.map((q) => {
      const retries = (q.retries || []).map((r) => '<li>' + esc(r.key) + ': failure #' + r.failures + ', waits ' + fmtMs(r.delayMs) + ', ' +
        (r.running ? 'being retried now' : 'next attempt at ' + fmtTime(r.nextAt) + (r.nextAt > s.now ? ' (in ' + fmtMs(r.nextAt - s.now) + ')' : ' (due)')) + '</li>').join('');
      const outcomes = Object.entries(q.outcomes || {}).map(([k, v]) => esc(k) + ' ' + v).join(' · ') || 'none yet';
      return '<div><h4>' + esc(q.controller === 'foo' ? 'foo-controller' : q.controller + ' (plays kube-controller-manager)') + '</h4>' +
        '<p>worker: <strong>' + (q.busy ? 'busy with ' + esc(q.busy) : 'idle') + '</strong></p>' +
        'waiting' + chips(q.waiting) + 'processing' + chips(q.processing, 'processing') + 'dirty' + chips(q.dirty) +
        'retries' + (retries ? '<ul>' + retries + '</ul>' : '<div class="chips"><span class="empty">none</span></div>') +
        '<p>Reconciles: ' + outcomes + (q.last ? '<br>last: ' + esc(q.last) : '') + '</p></div>';
    }).join('') + '</div>' : '<p class="empty">no controller yet</p>');

    // Controls that follow the state.
    const pause = $('btn-pause');
    pause.setAttribute('aria-pressed', String(s.valve.paused));
    pause.textContent = s.valve.paused ? 'Resume' : 'Pause';
    const targets = cache.map((c) => c.kind + '|' + c.key);
    const st = $('silent-target');
    const was = st.value;
    if (st.dataset.keys !== targets.join(',')) {
      st.dataset.keys = targets.join(',');
      st.replaceChildren(...cache.map((c) => {
        const o = document.createElement('option');
        o.value = c.kind + '|' + c.key;
        o.textContent = c.kind + ' ' + c.key;
        return o;
      }));
      if (targets.includes(was)) st.value = was;
      else if (targets.includes('Deployment|default/alpha-nginx')) st.value = 'Deployment|default/alpha-nginx';
    }
    renderStatus();
  }

  function renderStatus() {
    text('conn', (connected ? 'connected' : 'disconnected, reconnecting…') + ' · ' + received + ' events' +
      (droppedTotal ? ' · this page fell behind and dropped ' + droppedTotal + ' event(s)' : '') +
      (snap && snap.status.scenario ? ' · playing scenario "' + snap.status.scenario + '"' : ''));
  }

  // ---- controls -----------------------------------------------------------

  // ---- transports -----------------------------------------------------------

  // httpTransport talks to the page's server. The server writes a fresh
  // token into the page each run; the controls send it back, which a page
  // of another site cannot do.
  function httpTransport() {
    const controlToken = document.querySelector('meta[name="control-token"]').content;
    return {
      listen(on, onError) {
        const es = new EventSource('/api/events');
        for (const name of ['hello', 'batch', 'dropped', 'state']) es.addEventListener(name, (m) => on(name, m.data));
        es.onerror = onError;
      },
      async control(action) {
        const res = await fetch('/api/control', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Control-Token': controlToken },
          body: JSON.stringify(action),
        });
        const body = await res.json();
        return { ok: res.ok && !body.error, body };
      },
      async object(kind, key) {
        const res = await fetch('/api/object?kind=' + encodeURIComponent(kind) + '&key=' + encodeURIComponent(key));
        return res.ok ? await res.text() : (await res.json()).error;
      },
    };
  }

  // tabTransport calls the pipeline running in this tab (cmd/playground).
  function tabTransport(pg) {
    return {
      listen(on) { pg.listen(on); },
      async control(action) {
        const body = JSON.parse(await pg.control(JSON.stringify(action)));
        return { ok: !body.error, body };
      },
      async object(kind, key) { return (await pg.object(kind, key)).text; },
    };
  }

  let transport = null;

  async function act(name, args) {
    const msg = $('control-msg');
    try {
      const { ok, body } = await transport.control({ name, args: args || {} });
      msg.textContent = ok ? body.message : 'refused: ' + body.error;
      msg.classList.toggle('error', !ok);
      return ok;
    } catch (err) {
      msg.textContent = 'the demo is not answering: ' + err;
      msg.classList.add('error');
      return false;
    }
  }

  const fooName = () => $('foo-name').value.trim();
  const fooId = () => 'Foo ' + ((info && info.namespace) || 'default') + '/' + fooName();
  function watchFoo() {
    const id = fooId();
    if (timelines.has(id)) select(id); else pendingSelect = id;
  }

  function wire() {
    $('btn-create').addEventListener('click', () => {
      const id = fooId();
      timelines.delete(id); // a new object: a fresh timeline
      keysChanged = true;
      pendingSelect = id;
      if (selected === id) { selected = ''; renderTimeline(); }
      act('create', { name: fooName(), replicas: $('foo-replicas').value });
    });
    $('btn-scale').addEventListener('click', () => { watchFoo(); act('scale', { name: fooName(), replicas: $('foo-replicas').value }); });
    $('btn-delete').addEventListener('click', () => { watchFoo(); act('delete', { name: fooName() }); });
    $('btn-close-watches').addEventListener('click', () => act('close-watches'));
    $('btn-compact').addEventListener('click', () => act('compact'));
    $('btn-fail').addEventListener('click', () => { watchFoo(); act('fail-reconcile', { name: fooName() }); });
    $('btn-silent-delete').addEventListener('click', () => {
      const [kind, key] = ($('silent-target').value || '|').split('|');
      if (!key) { $('control-msg').textContent = 'nothing cached to delete'; return; }
      select(kind + ' ' + key);
      act('silent-delete', { kind, name: key.split('/').pop() });
    });
    $('btn-latency').addEventListener('click', () => act('latency', { ms: $('latency').value }));
    $('btn-slow').addEventListener('click', () => act('slow-handler', { ms: $('slow').value }));
    $('btn-pause').addEventListener('click', () => act(snap && snap.valve.paused ? 'resume' : 'pause'));
    $('btn-step').addEventListener('click', () => act('step'));
    $('btn-speed').addEventListener('click', () => {
      act('speed', { value: $('speed').value }).then((ok) => { if (ok) speed = Number($('speed').value); });
    });
    $('btn-scenario').addEventListener('click', () => act('scenario', { scenario: $('scenario').value }));
    $('scenario').addEventListener('change', scenarioHelp);
    $('inspect-key').addEventListener('change', (ev) => { selected = ev.target.value; renderTimeline(); });
    $('cache').addEventListener('click', (ev) => {
      const b = ev.target.closest('button.obj');
      if (b) openObject(b.dataset.kind, b.dataset.key);
    });
  }

  function scenarioHelp() {
    const sc = info && (info.scenarios || []).find((s) => s.name === $('scenario').value);
    $('scenario-help').textContent = sc ? sc.help + ': ' + sc.chapters.join(', ') + '.' : '';
  }

  async function openObject(kind, key) {
    const dlg = $('object-dialog');
    $('object-title').textContent = kind + ' ' + key + ', as the cache holds it';
    try {
      $('object-yaml').textContent = await transport.object(kind, key);
    } catch (err) {
      $('object-yaml').textContent = String(err);
    }
    dlg.showModal();
  }

  function applyInfo(i) {
    info = i;
    $('mode').textContent = i.mode;
    $('faults').hidden = !i.faults;
    $('scenarios').hidden = !i.faults || !(i.scenarios || []).length;
    const sel = $('scenario');
    if (!sel.options.length) {
      for (const s of i.scenarios || []) {
        const o = document.createElement('option');
        o.value = s.name;
        o.textContent = s.name;
        sel.append(o);
      }
      scenarioHelp();
    }
  }

  // ---- the stream ---------------------------------------------------------

  const handlers = {
    hello(h) {
      connected = true;
      if (!performance.getEntriesByName('informerlab:connected').length) performance.mark('informerlab:connected');
      const hist = h.history || [];
      if (hist.length && hist[hist.length - 1].seq < lastSeq) {
        // The demo restarted: start afresh.
        lastSeq = 0;
        timelines.clear();
        keysChanged = true;
        $('log').replaceChildren();
      }
      applyInfo(h.info);
      for (const e of hist) handle(e, false);
      for (const e of hist.slice(-40)) if (!quiet(e)) addLog(e);
      renderKeys();
      if (selected) renderTimeline();
      renderState(h.state);
    },
    batch(events) {
      for (const e of events) handle(e, true);
      renderKeys();
      renderStatus();
    },
    dropped(d) {
      droppedTotal = d.total;
      note('this page fell behind: ' + d.count + ' event(s) dropped here (' + d.total + ' in all); the pipeline did not wait', 'fault');
      renderStatus();
    },
    state(st) { renderState(st); },
    // panic: the playground's Go code panicked and recovered (a bug).
    panic(text) { failed(text); },
  };

  // failed shows on the page that the pipeline stopped or went wrong.
  function failed(text) {
    note(text, 'fault');
    const msg = $('control-msg');
    msg.textContent = text;
    msg.classList.add('error');
  }

  function connect() {
    transport.listen((name, data) => handlers[name](JSON.parse(data)), () => { connected = false; renderStatus(); });
  }

  // start picks the transport: the playground's loader (playground.js)
  // announces the pipeline in this tab; without it, the page's server.
  async function start() {
    wire();
    if (window.informerlabPlayground) {
      text('conn', 'starting the pipeline in this tab…');
      try {
        transport = tabTransport(await window.informerlabPlayground);
      } catch (err) {
        failed('the playground did not start: ' + err);
        return;
      }
      window.informerlabPlaygroundExited = (why) => { connected = false; failed(why); renderStatus(); };
    } else {
      transport = httpTransport();
    }
    connect();
  }

  start();
})();
