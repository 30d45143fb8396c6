#!/usr/bin/env node
// Run MicroPython code on MicroPython-WebAssembly under node.
//
//   node tools/mpy_wasm_run.mjs [--heap BYTES] [--parts] [--lib DIR]... [FILE.py]... < code.py
//
// Every FILE.py (and every *.py in each --lib DIR) is copied to /lib in the WASM
// filesystem (sys.path is ['', '.frozen', '/lib']).  The Python code read from stdin
// is run; its output goes to stdout.  On a Python exception the traceback goes to
// stderr and the exit status is 1.
//
// The code runs as one runPython() call, or one per part between lines `#--gc--`
// (--parts): this port collects garbage only between calls (gc.collect() in a call is
// deferred), so a part that follows one with gc.collect() sees the heap collected.
//
// The npm package @micropython/micropython-webassembly-pyscript is looked up in
// $CONNECTM_NPM_PREFIX or <repo>/.cache/npm (npm install --prefix .cache/npm ...).
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PKG = "@micropython/micropython-webassembly-pyscript";
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const prefix = process.env.CONNECTM_NPM_PREFIX || join(repo, ".cache", "npm");
const entry = join(prefix, "node_modules", PKG, "micropython.mjs");

function usage(msg) {
  process.stderr.write("mpy_wasm_run: " + msg + "\n");
  process.exit(2);
}

let heap = 8 * 1024 * 1024;
let parts = false;
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--parts") {
    parts = true;
  } else if (a === "--heap") {
    heap = parseInt(argv[++i], 10);
  } else if (a === "--lib") {
    const d = argv[++i];
    for (const f of readdirSync(d).sort()) {
      if (f.endsWith(".py")) files.push(join(d, f));
    }
  } else if (a.startsWith("-")) {
    usage("unknown option " + a);
  } else {
    files.push(a);
  }
}
if (!existsSync(entry)) {
  usage(PKG + " not found at " + entry + " (run: npm install --prefix " + prefix + " " + PKG + ")");
}

const code = readFileSync(0, "utf8");
const { loadMicroPython } = await import(pathToFileURL(entry).href);
const mp = await loadMicroPython({
  stdout: (d) => process.stdout.write(d),
  stderr: (d) => process.stderr.write(d),
  linebuffer: false,
  heapsize: heap,
});
mp.FS.mkdir("/lib");
for (const f of files) {
  mp.FS.writeFile("/lib/" + basename(f), readFileSync(f));
}
try {
  for (const part of parts ? code.split(/^#--gc--$/m) : [code]) {
    mp.runPython(part);
  }
} catch (e) {
  const msg = e && e.message !== undefined ? e.message : String(e);
  process.stderr.write(msg.endsWith("\n") ? msg : msg + "\n");
  process.exitCode = 1;
}
