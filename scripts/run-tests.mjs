#!/usr/bin/env node
// Runs every compiled test file with node's test runner, on this machine; then the suites that
// touch the kernel's cgroups (the daemon end to end, the Linux and runtime modules) once more on a
// cgroup v2 kernel, in a guest (scripts/v2-guest.sh), when one can run here, and says why not
// otherwise. Node 20's --test neither expands globs nor finds files on its own, so the lists are
// built here. Extra arguments are passed to the test runner.
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
const extra = process.argv.slice(2);
// A file's whole run is one test to the runner: its bound must exceed the longest test's own
// timeout (the hostile-manifest suite allows itself 420 s), or a slow machine kills a passing suite.
const FILE_TIMEOUT_MS = 600000;
const native = spawnSync(
  process.execPath,
  ["--test", "--test-reporter=spec", `--test-timeout=${FILE_TIMEOUT_MS}`, ...extra, ...files],
  { stdio: "inherit" },
);

// The guest emulates its CPU: its waits stretch by this factor (test/harness/node-harness.ts).
const SLOWDOWN = 3;
// Suites whose outcome cannot depend on the cgroup version and that hold CPU-bound work to budgets
// in CPU seconds (manifest parsing) or take many minutes under emulation: natively only, each named
// with its reason when the guest runs. The guest's CPU runs JIT-compiled code 15-20 times slower
// than this machine, so a parse that takes 2 s here exceeds the daemon's 5 s budget there.
const NATIVE_ONLY = new Map([
  [
    "dist/src/runtime/manifest-read-thread.test.js",
    "manifest parsing against its CPU budget; no cgroup involved",
  ],
  [
    "dist/test/e2e/daemon-hostile-manifests.test.js",
    "manifest parsing against the daemon's CPU budget and /healthz latency; eviction on v2 is daemon-memory's",
  ],
  [
    "dist/test/e2e/daemon-prometheus.test.js",
    "a Prometheus server under emulation; the metrics it ingests are served the same on v2 (daemon-memory and daemon-oom-kills read them there)",
  ],
  [
    "dist/test/e2e/daemon-durability.test.js",
    "the state filesystem and the final-status journal; eviction on v2 is daemon-memory's",
  ],
]);
const kernelSuites = [
  ...find("dist/src/linux", []),
  ...find("dist/src/runtime", []),
  ...find("dist/test/e2e", []),
]
  .filter((f) => !NATIVE_ONLY.has(f))
  .sort();
let guest = 0;
const skip = process.env.EVICTD_SKIP_V2_GUEST === "1" ? "EVICTD_SKIP_V2_GUEST=1" : guestUnavailable();
if (skip !== undefined) {
  console.log(`# cgroup v2 suites skipped: ${skip}`);
} else {
  console.log(
    `# cgroup v2: ${kernelSuites.length} suites again in a guest with a cgroup v2 kernel (waits ×${SLOWDOWN})`,
  );
  for (const [file, why] of NATIVE_ONLY) console.log(`# cgroup v2: not in the guest: ${file} (${why})`);
  const run = spawnSync(
    "bash",
    [
      "scripts/v2-guest.sh",
      "--",
      process.execPath,
      "--test",
      "--test-reporter=spec",
      `--test-timeout=${FILE_TIMEOUT_MS * SLOWDOWN}`,
      ...extra,
      ...kernelSuites,
    ],
    { stdio: "inherit", env: { ...process.env, EVICTD_TEST_SLOWDOWN: String(SLOWDOWN) } },
  );
  guest = run.status ?? 1;
  console.log(`# cgroup v2 suites: ${guest === 0 ? "passed" : `failed (exit ${guest})`}`);
}
process.exit((native.status ?? 1) !== 0 ? (native.status ?? 1) : guest);

/** Why no cgroup v2 guest can run here, or undefined when one can. */
function guestUnavailable() {
  const check = spawnSync("bash", ["scripts/v2-guest.sh", "--check"], { encoding: "utf8" });
  if (check.status === 0) return undefined;
  return (check.stdout || check.stderr || `scripts/v2-guest.sh --check exited ${check.status}`).trim();
}
