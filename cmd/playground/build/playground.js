// informerlab playground loader: starts the Go program (playground.wasm,
// with the Go runtime's wasm_exec.js) in this tab, and announces it to the
// page's script (app.js) as window.informerlabPlayground, a Promise of the
// bridge the program hands over once its pipeline runs. Nothing is fetched
// from outside this folder.
'use strict';

(() => {
  let started, failed;
  window.informerlabPlayground = new Promise((resolve, reject) => { started = resolve; failed = reject; });
  window.informerlabPlaygroundStarted = (api) => started(api);
  window.informerlabPlaygroundFailed = (msg) => failed(new Error(msg));

  const go = new Go();
  let exitCode = null;
  go.exit = (code) => { exitCode = code; };
  const load = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch('playground.wasm'), go.importObject)
    : fetch('playground.wasm').then((r) => r.arrayBuffer()).then((b) => WebAssembly.instantiate(b, go.importObject));
  load.then(async (result) => {
    await go.run(result.instance);
    // The Go program ended: a panic outside the bridge, which the
    // browser's console shows in full.
    const why = 'the playground stopped (exit code ' + exitCode + '): its Go program ended; the browser console has the reason. Reload the page to start afresh.';
    failed(new Error(why));
    if (window.informerlabPlaygroundExited) window.informerlabPlaygroundExited(why);
  }).catch((err) => failed(err));
})();
