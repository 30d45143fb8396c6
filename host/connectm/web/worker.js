// worker.js (connectm web): one board's build on MicroPython-WebAssembly, in a Web Worker so
// that the computer's search never freezes the page. The board's files go to the port's file
// system; webmain.py (its main.py as a generator, connectm.webpage) boots it at the first
// step, then every STEP_MS a step runs one pass of main.py's game loop. Between two steps
// the buttons, the logo and the typed bytes reach the board (webhw.apply); a button's release
// and its next press wait until a step has seen the change (and, for a Pico's debounced
// buttons, `hold` ms).
// The LEDs, text and sounds come back as the firmware sets them (the `webjs` module), its
// printed lines as they end, the game's state after each step.
import { loadMicroPython } from "./micropython.mjs";

const STEP_MS = 20; // main.py's sleep_ms(20) between two steps
const SAVES = ["cm0.sav", "cm1.sav"]; // kept over a reset, as a board's flash keeps them
const decoder = new TextDecoder();
const cache = new Map(); // url -> its bytes, fetched once
let manifest = null;
let name = "";
let spec = null;
let mp = null;
let step = null;
let timer = 0;
let steps = 0;
let pending = []; // [control, 0 or 1] in order, not yet applied
const changed = {}; // control -> {step, time} of its last change applied
const serial = []; // bytes typed, not yet given to the board
let line = [];
let last = "";

const post = (m) => postMessage(m);

async function bytes(url) {
  if (!cache.has(url)) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(url + ": HTTP " + r.status);
    cache.set(url, new Uint8Array(await r.arrayBuffer()));
  }
  return cache.get(url);
}

function output(chunk) {
  for (const b of chunk) {
    if (b === 10) {
      post({ type: "line", text: decoder.decode(new Uint8Array(line)) });
      line = [];
    } else if (b !== 13) {
      line.push(b);
    }
  }
}

function lines(text) {
  for (const l of String(text).trimEnd().split("\n")) post({ type: "line", text: l });
}

async function boot(saves) {
  clearTimeout(timer);
  const t0 = performance.now();
  mp = await loadMicroPython({
    stdout: output,
    stderr: output,
    linebuffer: false,
    // a Pico reads the serial line from stdin (cmpico); null: nothing typed
    stdin: () => (serial.length ? serial.shift() : null),
  });
  mp.registerJsModule("webjs", {
    px: (x, y, v) => post({ type: "px", x, y, v }),
    row: (y, v) => post({ type: "row", y, v }),
    text: (s) => post({ type: "text", text: s }),
    tone: (f, ms) => post({ type: "sound", tone: [f, ms] }),
    tune: (s) => post({ type: "sound", tune: s }),
    stop: () => post({ type: "sound", stop: true }),
    volume: (v) => post({ type: "sound", volume: v }),
  });
  mp.FS.mkdir("/lib");
  for (const f of manifest.hw) mp.FS.writeFile("/lib/" + f, await bytes("hw/" + f));
  for (const f of spec.files) {
    if (f !== "webmain.py") mp.FS.writeFile("/" + f, await bytes(`boards/${name}/${f}`));
  }
  for (const [f, data] of Object.entries(saves)) mp.FS.writeFile("/" + f, data);
  mp.globals.set("spec_json", JSON.stringify(spec));
  mp.runPython("import webhw\nwebhw.setup(spec_json)");
  mp.runPython(decoder.decode(await bytes(`boards/${name}/webmain.py`)));
  step = mp.globals.get("step");
  steps = 0;
  last = "";
  for (const c in changed) delete changed[c];
  post({ type: "loaded", ms: performance.now() - t0 });
  timer = setTimeout(tick, 0);
}

function reset() {
  // the board's reset: a new interpreter, the save files kept (its boot restores the game)
  clearTimeout(timer);
  const saves = {};
  for (const f of SAVES) {
    try {
      saves[f] = mp.FS.readFile("/" + f);
    } catch (e) {
      // no such save
    }
  }
  pending = [];
  serial.length = 0;
  post({ type: "reset" });
  boot(saves).catch((e) => post({ type: "fatal", text: String(e) }));
}

function events(now) {
  const words = [];
  if (spec.display === "microbit") {
    while (serial.length) words.push("u=" + serial.shift());
  }
  while (pending.length) {
    const [c, v] = pending[0];
    const last = changed[c];
    if (last && (steps <= last.step || now - last.time < spec.hold)) {
      break; // the control's last change not seen long enough: this waits, and all after it
    }
    changed[c] = { step: steps, time: now };
    pending.shift();
    words.push(c + "=" + v);
  }
  return words.join(" ");
}

function tick() {
  const t0 = performance.now();
  let state;
  try {
    state = step(events(t0));
  } catch (e) {
    if (/SystemExit: reset/.test(e.message)) {
      reset();
      return;
    }
    lines(e.message || e);
    post({ type: "stopped" });
    return;
  }
  steps++;
  const ms = performance.now() - t0;
  if (state !== last || ms > 100) {
    last = state;
    post({ type: "state", state: JSON.parse(state), ms });
  }
  timer = setTimeout(tick, STEP_MS);
}

onmessage = async (e) => {
  const m = e.data;
  if (m.type === "boot") {
    try {
      manifest = await (await fetch("boards.json")).json();
      name = m.board in manifest.boards ? m.board : manifest.default;
      spec = manifest.boards[name];
      post({ type: "board", name, spec, manifest });
      await boot({});
    } catch (err) {
      post({ type: "fatal", text: String(err) });
    }
  } else if (m.type === "press") {
    pending.push([m.control, m.down ? 1 : 0]);
  } else if (m.type === "serial") {
    serial.push(...m.bytes);
  } else if (m.type === "reset" && mp) {
    reset();
  }
};
