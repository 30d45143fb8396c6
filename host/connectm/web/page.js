// page.js (connectm web): the board on the page. The firmware runs in worker.js; this draws
// what it sets (LEDs, a MAX7219's rows, scrolled text, sounds), shows its serial lines, and
// sends it the buttons, the touch logo and the bytes typed. window.connectm keeps each line
// with its time (performance.now(), ms), the sounds asked for, the load time (ms from the
// page's start to the board's first step), for tests and the curious.
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const worker = new Worker("worker.js", { type: "module" });
const info = { lines: [], loadMs: null, bootMs: null, steps: [], sounds: [] };
window.connectm = info;
// mip's line for a Pico: the packages are published beside the page (connectm web --out)
$("mip").textContent = "mpremote mip install --target / " + new URL("package.json", location.href);

let spec = null;
let kind = "microbit";
let game = null; // cmgame's state after the last step (webhw.report), updated by the lines
let result = "";
let thinking = false;
const leds = [];

// controls: a page control -> the board's inputs it holds down
const CONTROLS = {
  microbit: { "btn-a": ["a"], "btn-b": ["b"], "btn-ab": ["a", "b"], logo: ["logo"] },
  max7219: { "btn-a": ["left"], "btn-b": ["right"], "btn-ab": ["drop"] },
};
const KEYS = { a: "btn-a", b: "btn-b", " ": "btn-ab", t: "logo" };
const SERIAL_KEYS = /^[dlr1-9?]$/;

function press(control, down) {
  const inputs = CONTROLS[kind][control];
  if (!inputs) return;
  $(control).classList.toggle("down", down);
  for (const c of inputs) worker.postMessage({ type: "press", control: c, down });
  sound.unlock();
}

function send(text) {
  worker.postMessage({ type: "serial", bytes: [...new TextEncoder().encode(text)] });
  sound.unlock();
}

function setupBoard(m) {
  spec = m.spec;
  kind = spec.display;
  const select = $("board");
  for (const [name, b] of Object.entries(m.manifest.boards)) {
    select.add(new Option(b.title, name, false, name === m.name));
  }
  select.onchange = () => { location.search = "?board=" + select.value; };
  $("mpy").textContent = m.manifest.micropython;
  const n = kind === "microbit" ? 5 : 8;
  const grid = $("leds");
  grid.className = kind;
  for (let i = 0; i < n * n; i++) {
    const d = document.createElement("div");
    d.className = "led";
    d.dataset.x = i % n;
    d.dataset.y = Math.floor(i / n);
    d.dataset.v = 0;
    grid.append(d);
    leds.push(d);
  }
  if (kind === "max7219") {
    $("btn-a").textContent = "\u25c0";
    $("btn-b").textContent = "\u25b6";
    $("btn-ab").textContent = "drop";
    $("btn-a").title = "left (key a)";
    $("btn-b").title = "right (key b)";
    $("btn-ab").title = "drop (space)";
  } else {
    $("btn-a").title = "button A (key a): left";
    $("btn-b").title = "button B (key b): right";
    $("btn-ab").title = "A and B together (space): drop";
  }
  $("logo").hidden = !spec.logo;
  $("help").textContent = (kind === "microbit"
    ? "A and B move the cursor (in the menu: the level), A+B drops" +
      (spec.logo ? ", so does a tap on the logo (a 1 s hold turns the sounds on or off)" : "") +
      ". Keys: a, b, space (A+B)" + (spec.logo ? ", t (logo)" : "")
    : "\u25c0 and \u25b6 move the cursor (in the menu: the level), drop drops. " +
      "Keys: a, b, space (drop)") +
    "; and the serial line's d, 1-" + spec.size[0] + ", l, r, ? (also typed below).";
}

function setLed(x, y, v) {
  const n = kind === "microbit" ? 5 : 8;
  const d = leds[y * n + x];
  if (d) {
    d.dataset.v = v;
    d.style.setProperty("--v", v);
  }
}

function serialLine(text) {
  info.lines.push({ t: performance.now(), text });
  const pre = $("serial");
  const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
  pre.append(text + "\n");
  if (pre.childNodes.length > 2000) pre.firstChild.remove();
  if (atEnd) pre.scrollTop = pre.scrollHeight;
  let m;
  if ((m = /^B \d+x\d+ lv=(\d+) you=(\d) moves=(\d*) turn=(\d) over=(\d)/.exec(text)) && game) {
    Object.assign(game, { lv: +m[1], hp: +m[2], moves: m[3], turn: +m[4], over: +m[5] });
    game.st = game.over ? 2 : 1;
    thinking = !game.over && game.turn !== game.hp;
  } else if ((m = /^L (\d+)/.exec(text)) && game) {
    game.lv = +m[1];
  } else if ((m = /^R ([WLD]) (\d+)-(\d+)-(\d+)/.exec(text))) {
    result = { W: "you won", L: "you lost", D: "a draw" }[m[1]] +
      ` (at this level you have won ${m[2]}, lost ${m[3]}, drawn ${m[4]})`;
  }
  render();
}

function render() {
  if (!game) return;
  const device = spec.display === "microbit" ? "micro:bit" : "Pico";
  const levels = spec.levels;
  $("level").textContent = `${game.lv} of ${levels}` + (game.lv === levels ? " (the top)" : "");
  const mine = kind === "microbit" ? "your discs bright, the " + device + "'s dim"
    : "your discs steady, the " + device + "'s blinking";
  $("you").textContent = (game.hp === 1 ? "first" : "second") + ": " + mine;
  $("turn").textContent = game.st !== 1 ? "-" : game.turn === game.hp ? "yours"
    : "the " + device + "'s";
  $("result").textContent = result || "-";
  let s;
  if (game.st === 0) {
    s = `Menu: level ${game.lv} of ${levels}. ` +
      (kind === "microbit" ? "A and B choose it, A+B starts." : "\u25c0 \u25b6 choose it, drop starts.");
  } else if (game.st === 1) {
    s = thinking || game.turn !== game.hp ? `The ${device} is thinking\u2026`
      : `Your turn: move the cursor, then drop.`;
  } else {
    s = (game.over === 3 ? "A draw." : game.over === game.hp ? "You won!" : "You lost.") +
      " " + (kind === "microbit" ? "A+B" : "Drop") + " starts the next game.";
  }
  $("status").textContent = s;
  const root = document.body.dataset;
  Object.assign(root, { st: game.st, lv: game.lv, hp: game.hp, cur: game.cur,
    moves: game.moves, turn: game.turn, over: game.over, thinking: thinking ? 1 : 0 });
}

// Sounds: the firmware's pitches and tunes (music.pitch, music.play) on Web Audio, square
// waves like the micro:bit's speaker; a browser lets a page sound after a click or a key.
const sound = {
  ctx: null,
  gain: 40 / 255,
  playing: [],
  unlock() {
    if (!spec || !spec.sound) return;
    try {
      if (!this.ctx) this.ctx = new AudioContext();
      if (this.ctx.state === "suspended") this.ctx.resume();
    } catch (e) {
      this.ctx = null; // no audio here: the board plays on, silent
    }
  },
  tone(f, ms, at) {
    if (!this.ctx || f <= 0) return;
    const o = this.ctx.createOscillator();
    const g = this.ctx.createGain();
    o.type = "square";
    o.frequency.value = f;
    g.gain.value = 0.15 * this.gain;
    o.connect(g).connect(this.ctx.destination);
    o.start(at);
    o.stop(at + ms / 1000);
    this.playing.push(o);
    o.onended = () => { this.playing = this.playing.filter((x) => x !== o); };
  },
  tune(text) {
    // micro:bit notes: name (a-g, r a rest), # or b, octave, :ticks; octave and ticks carry
    // over; 4 ticks a beat at 120 bpm
    if (!this.ctx) return;
    let t = this.ctx.currentTime;
    let octave = 4;
    let ticks = 4;
    for (const note of text.split(/\s+/)) {
      const m = /^([a-gr])(#|b)?(\d)?(?::(\d+))?$/i.exec(note);
      if (!m) continue;
      if (m[3]) octave = +m[3];
      if (m[4]) ticks = +m[4];
      const ms = ticks * 125;
      if (m[1].toLowerCase() !== "r") {
        const semis = { c: 0, d: 2, e: 4, f: 5, g: 7, a: 9, b: 11 }[m[1].toLowerCase()] +
          (m[2] === "#" ? 1 : m[2] === "b" ? -1 : 0);
        const midi = 12 * (octave + 1) + semis;
        this.tone(440 * 2 ** ((midi - 69) / 12), ms * 0.9, t);
      }
      t += ms / 1000;
    }
  },
  handle(m) {
    if (m.volume !== undefined) this.gain = m.volume / 255;
    if (m.stop) for (const o of this.playing) o.stop();
    if (m.tone && this.ctx) this.tone(m.tone[0], m.tone[1] > 0 ? m.tone[1] : 1000, this.ctx.currentTime);
    if (m.tune) this.tune(m.tune);
  },
};

worker.onmessage = (e) => {
  const m = e.data;
  switch (m.type) {
    case "board":
      setupBoard(m);
      break;
    case "loaded":
      info.bootMs = m.ms;
      break;
    case "px":
      setLed(m.x, m.y, m.v);
      break;
    case "row":
      for (let x = 0; x < 8; x++) setLed(x, m.y, m.v & (128 >> x) ? 9 : 0);
      break;
    case "line":
      serialLine(m.text);
      break;
    case "text":
      $("scroll").textContent = m.text ? "scrolling: " + m.text : "";
      break;
    case "sound":
      info.sounds.push(m);
      sound.handle(m);
      break;
    case "state":
      if (info.loadMs === null) info.loadMs = performance.now();
      if (m.ms > 100) info.steps.push({ t: performance.now(), ms: m.ms });
      game = m.state;
      thinking = false;
      render();
      break;
    case "reset":
      serialLine("(reset)");
      break;
    case "stopped":
      $("status").textContent = "The game stopped (see the serial lines). Reset starts it again.";
      break;
    case "fatal":
      $("status").textContent = "The board could not start: " + m.text +
        (location.protocol === "file:" ? " (open the page through a web server: connectm web)" : "");
      break;
  }
};
worker.onerror = (e) => {
  $("status").textContent = "The page's worker failed: " + (e.message || "no module workers?");
};
worker.postMessage({ type: "boot", board: params.get("board") || "" });

for (const id of ["btn-a", "btn-b", "btn-ab", "logo"]) {
  const el = $(id);
  let held = false;
  el.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    held = true;
    press(id, true);
  });
  const release = () => {
    if (held) {
      held = false;
      press(id, false);
    }
  };
  el.addEventListener("pointerup", release);
  el.addEventListener("pointerleave", release);
  el.addEventListener("pointercancel", release);
  el.addEventListener("click", (e) => {
    if (e.detail === 0) { // a key on the focused button (Enter, Space): a press
      press(id, true);
      press(id, false);
    }
  });
}
$("reset").onclick = () => worker.postMessage({ type: "reset" });

const heldKeys = new Set();
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.closest("input, select, textarea")) return;
  if (e.target.closest("button") && (e.key === " " || e.key === "Enter")) return; // its click
  const key = e.key.toLowerCase();
  if (KEYS[key] && CONTROLS[kind][KEYS[key]]) {
    e.preventDefault();
    if (!heldKeys.has(key)) {
      heldKeys.add(key);
      press(KEYS[key], true);
    }
  } else if (SERIAL_KEYS.test(e.key)) {
    e.preventDefault();
    send(e.key);
  }
});
document.addEventListener("keyup", (e) => {
  const key = e.key.toLowerCase();
  if (heldKeys.delete(key)) press(KEYS[key], false);
});
$("serial-in").addEventListener("keydown", (e) => {
  // a terminal: each key goes to the board as typed (it does not echo)
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key.length === 1 || e.key === "Enter") {
    e.preventDefault();
    send(e.key === "Enter" ? "\r" : e.key);
  }
});
