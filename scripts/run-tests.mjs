#!/usr/bin/env node
// Runs every compiled test file with node's test runner. Node 20's --test neither expands globs
// nor finds files on its own, so the list is built here. Extra arguments are passed through.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

function find(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) find(p, out);
    else if (name.endsWith(".test.js")) out.push(p);
  }
  return out;
}

const files = [...find("dist/src", []), ...find("dist/test", [])].sort();
if (files.length === 0) {
  console.error("no test files found under dist/: run `npm run build` first");
  process.exit(1);
}
const args = ["--test", "--test-reporter=spec", "--test-timeout=180000", ...process.argv.slice(2), ...files];
const r = spawnSync(process.execPath, args, { stdio: "inherit" });
process.exit(r.status ?? 1);
