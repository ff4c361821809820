#!/usr/bin/env node
// Runs the compiled test files with node's test runner: `unit`, `system` or `all` (the default).
//
//   unit    the suites that need nothing but node and this checkout: no root, no cgroups, no evictd
//           process (CLI or daemon), no browser, no Prometheus, no VM (loopback HTTP servers in the
//           test's own process, temporary files, /proc/self and a short `sh` or `node -e` are
//           fine). They share one process: an entry module generated here imports them all, and
//           node:test runs what they register; the few that cannot share it run one process each.
//   system  everything else, one process per file, on this machine; then the suites that touch the
//           kernel's cgroups (the daemon end to end, the Linux and runtime modules, unit ones among
//           them) once more on a cgroup v2 kernel, in a guest (scripts/v2-guest.sh), when one can
//           run here, and says why not otherwise.
//   all     unit, then system.
//   list    prints each file's suite and runs nothing.
//
// Every compiled test file is unit or system by the lists below, or nothing runs: a new test file
// is placed when it is added, never skipped. Node 20's --test neither expands globs nor finds files
// on its own, so the file lists are built here. Further arguments go to the test runner
// (`node scripts/run-tests.mjs unit --test-name-pattern=quantity`). Run `npm run build` first
// (`npm test`, `npm run test:unit` and `npm run test:system` do).
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { spawn, spawnSync } from "node:child_process";

// Each list names source files or folders (ending in "/"), or "*" and a file name's ending. The
// longest pattern that matches a file decides: a file named in one list wins over its folder in
// the other.

/** Needs nothing but node and this checkout. */
const UNIT = [
  // The engine and the use cases do no I/O; scenarios, properties and the oracle drive them.
  "src/core/",
  "src/app/",
  "test/scenarios/",
  "test/properties/",
  "test/support/",
  // Files, JSON and YAML, kubeconfigs, and the Kubernetes client against in-process servers.
  "src/formats/",
  "src/kubernetes/",
  "test/harness/",
  "test/data/",
  "src/cli/commands/explain.test.ts",
  "src/cli/commands/watch-preflight-default.test.ts",
  "src/cli/output/terminal-text.test.ts",
  "src/daemon/daemon-status-view.test.ts",
  "src/daemon/gc/young-generation-trim.test.ts",
  "src/daemon/loop-thread/pods-feed.test.ts",
  "src/daemon/start-undo.test.ts",
  "src/daemon/until-aborted.test.ts",
  // The Linux adapters against fake cgroup trees and /proc files in temporary directories, and
  // against this process's own /proc/self, eventfds and file locks.
  "src/linux/cgroups/cgroup-drivers.test.ts",
  "src/linux/cgroups/cgroup-files.test.ts",
  "src/linux/cgroups/spawn-in-cgroup.test.ts",
  "src/linux/file-lock.test.ts",
  "src/linux/kubelet-cgroups/kubelet-cgroup-names.test.ts",
  "src/linux/kubelet-cgroups/kubelet-memory-reader.test.ts",
  "src/linux/node-stats/cgroup-stats-reader.test.ts",
  "src/linux/node-stats/log-usage.test.ts",
  "src/linux/node-stats/map-concurrently.test.ts",
  "src/linux/node-stats/nano-clock.test.ts",
  "src/linux/node-stats/node-memory-views-reader.test.ts",
  "src/linux/node-stats/partial-usage-read.test.ts",
  "src/linux/node-stats/refresh-schedule.test.ts",
  "src/linux/node-stats/summary-collector-procfs.test.ts",
  "src/linux/node-stats/summary-collector.test.ts",
  "src/linux/node-stats/summary-json.test.ts",
  "src/linux/node-stats/usage-cache.test.ts",
  "src/linux/notify/eventfd.test.ts",
  "src/linux/notify/fd-poller.test.ts",
  "src/linux/notify/plan-wake-sources.test.ts",
  "src/linux/own-process.test.ts",
  "src/linux/procfs.test.ts",
  "src/linux/system-clock.test.ts",
  "src/prometheus/prometheus-http-api.test.ts",
  // The runtime's pure parts, manifests and status files in temporary directories.
  "src/runtime/container-launch.test.ts",
  "src/runtime/dry-run-pods.test.ts",
  "src/runtime/expand-env-refs.test.ts",
  "src/runtime/manifest-admission.test.ts",
  "src/runtime/manifest-read-thread.test.ts",
  "src/runtime/manifest-source.test.ts",
  "src/runtime/node-directories.test.ts",
  "src/runtime/pod-actions.test.ts",
  "src/runtime/pod-phase.test.ts",
  "src/runtime/pod-status-file.test.ts",
  "src/runtime/read-manifest-file.test.ts",
  "src/runtime/restart-backoff.test.ts",
  "src/server/http-handler.test.ts",
  "src/server/http-server.test.ts",
  "src/server/metrics.test.ts",
  "src/server/prom-client-parts.test.ts",
  "test/bench/evictd-daemonset-pod.test.ts",
  "test/cli/explain-memory-views.test.ts",
  "test/contracts/pods-port-cluster-pods.test.ts",
  "test/deploy/manifests.test.ts",
  "test/k8s/cluster-connections.test.ts",
  "test/k8s/cluster-eviction-requests.test.ts",
  "test/k8s/cluster-node-failures.test.ts",
  "test/k8s/cluster-node-kubeconfig.test.ts",
  "test/k8s/cluster-node-reads.test.ts",
  "test/k8s/cluster-node-watch.test.ts",
  "test/k8s/cluster-node-writes.test.ts",
  "test/k8s/node-local-summary.test.ts",
  "test/k8s/node-pod-set.test.ts",
  "test/package/public-api.test.ts",
  "test/report/replay-report.test.ts",
];

/** Unit files that cannot share the process, each with why: they run one process each. */
const OWN_PROCESS = new Map([
  [
    "test/k8s/cluster-node-kubeconfig.test.ts",
    "sets KUBECONFIG and KUBERNETES_SERVICE_* in process.env while its requests are in flight",
  ],
]);

/** Needs the machine: root, cgroups, evictd's own processes, or programs beside node. */
const SYSTEM = [
  // Real processes, cgroups and tmpfs mounts (as root); the daemon end to end.
  "*.live.test.ts",
  "test/e2e/",
  "test/contracts/pods-port-dry-run.test.ts",
  "test/contracts/pods-port-pod-runtime.test.ts",
  "test/contracts/pods-port-remote-pods.test.ts",
  "src/linux/cgroups/cgroup-procs-now.test.ts",
  "src/linux/cgroups/detect-cgroups.test.ts",
  "src/linux/node-stats/kernel-file-reader.test.ts",
  "src/linux/notify/memcg-threshold-notifier.test.ts",
  "src/linux/notify/memory-events-watcher.test.ts",
  "src/linux/notify/memory-reclaim-watch.test.ts",
  "src/linux/notify/notification-wake-port.test.ts",
  "src/linux/notify/psi-trigger.test.ts",
  "src/linux/notify/wake-source.contract.test.ts",
  "src/linux/notify/working-set-poller.test.ts",
  "src/linux/node-stats/directory-usage.test.ts",
  "src/linux/node-stats/filesystem-stats.test.ts",
  "src/runtime/container-log-rotation.test.ts",
  "src/runtime/final-status-journal.test.ts",
  "src/server/decision-log.test.ts",
  // The evictd command as a user runs it (and the bench commands).
  "test/cli/",
  "test/data/replay-data.test.ts",
  "test/data/upstream-scenarios.test.ts",
  "test/deploy/fleet-manifests.test.ts",
  "test/k8s/cluster-cli-careless.test.ts",
  "test/k8s/cluster-cli.test.ts",
  "test/k8s/cluster-eviction-preflight.test.ts",
  "test/k8s/cluster-watch.test.ts",
  "test/bench/bench-args.test.ts",
  // npm pack and a fresh project; promtool, Prometheus, systemd-analyze and chromium.
  "test/package/",
  "test/prometheus/",
  "test/deploy/monitoring-rules.test.ts",
  "test/deploy/systemd-unit.test.ts",
  "test/report/live-page-in-chromium.test.ts",
  "test/report/report-in-chromium.test.ts",
];

// A file's whole run is one test to the runner: its bound must exceed the longest test's own
// timeout (the hostile-manifest suite allows itself 420 s), or a slow machine kills a passing suite.
const FILE_TIMEOUT_MS = 600000;

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

const MODES = ["unit", "system", "all", "list"];
const args = process.argv.slice(2);
const mode = MODES.includes(args[0] ?? "")
  ? args.shift()
  : args[0] === undefined || args[0].startsWith("-")
    ? "all"
    : undefined;
if (mode === undefined) {
  console.error(`usage: node scripts/run-tests.mjs [${MODES.join("|")}] [test runner options]`);
  process.exit(2);
}
const extra = args;

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

/** The source file a compiled test file comes from: dist/src/x.test.js → src/x.test.ts. */
const source = (file) => file.slice("dist/".length).replace(/\.js$/, ".ts");

const matches = (pattern, src) =>
  pattern.endsWith("/")
    ? src.startsWith(pattern)
    : pattern.startsWith("*")
      ? src.endsWith(pattern.slice(1))
      : src === pattern;

/** The unit and system files, or the reasons the lists do not place every file exactly once. */
function classify() {
  const unit = [];
  const system = [];
  const problems = [];
  const longest = (list, src) => Math.max(-1, ...list.filter((p) => matches(p, src)).map((p) => p.length));
  for (const file of files) {
    const src = source(file);
    const u = longest(UNIT, src);
    const s = longest(SYSTEM, src);
    if (u < 0 && s < 0)
      problems.push(`${src} is in neither list: add it to UNIT or SYSTEM in scripts/run-tests.mjs`);
    else if (u === s) problems.push(`${src} is in both lists: keep it in one`);
    else (u > s ? unit : system).push(file);
  }
  const built = new Set(files.map(source));
  for (const p of [...UNIT, ...SYSTEM, ...OWN_PROCESS.keys()])
    if (!p.endsWith("/") && !p.startsWith("*") && !built.has(p))
      problems.push(`${p} is listed in scripts/run-tests.mjs but no such test was built`);
  for (const p of OWN_PROCESS.keys())
    if (built.has(p) && !unit.some((f) => source(f) === p))
      problems.push(`${p} runs alone, but is not a unit test`);
  return { unit, system, problems };
}

const { unit, system, problems } = classify();
if (problems.length > 0) {
  for (const p of problems) console.error(`# ${p}`);
  process.exit(1);
}
const alone = unit.filter((f) => OWN_PROCESS.has(source(f)));
const shared = unit.filter((f) => !OWN_PROCESS.has(source(f)));
console.log(
  `# ${files.length} test files: ${unit.length} unit (${shared.length} in one process, ${alone.length} one process each), ${system.length} system`,
);
if (mode === "list") {
  for (const f of files)
    console.log(
      `${system.includes(f) ? "system" : alone.includes(f) ? "unit (own process)" : "unit"}\t${source(f)}`,
    );
  process.exit(0);
}

/** Runs node with `nodeArgs`: its exit status, and what it printed when `quiet` (else it prints as it goes). */
function node(nodeArgs, quiet = false) {
  return new Promise((done) => {
    const child = spawn(process.execPath, nodeArgs, {
      stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    const out = [];
    child.stdout?.on("data", (b) => out.push(b));
    child.stderr?.on("data", (b) => out.push(b));
    child.on("close", (code, signal) =>
      done({ status: code ?? (signal !== null ? 1 : 0), output: Buffer.concat(out) }),
    );
  });
}

/** node's test runner over `list`, one process per file. */
async function perFile(list, quiet = false) {
  if (list.length === 0) return { status: 0, output: Buffer.alloc(0) };
  return node(
    ["--test", "--test-reporter=spec", `--test-timeout=${FILE_TIMEOUT_MS}`, ...extra, ...list],
    quiet,
  );
}

/** The shared unit files in one process: an entry module imports each (a file that fails to load is a failed test). */
async function oneProcess(list) {
  const dir = mkdtempSync(join(tmpdir(), "evictd-unit-"));
  const entry = join(dir, "unit-tests.mjs");
  const urls = list.map((f) => pathToFileURL(resolve(f)).href);
  writeFileSync(
    entry,
    [
      'import { test } from "node:test";',
      `for (const url of ${JSON.stringify(urls, null, 1)}) {`,
      "  try {",
      "    await import(url);",
      "  } catch (error) {",
      "    test(`${url} loads`, () => {",
      "      throw error;",
      "    });",
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  try {
    return (await node(["--test-reporter=spec", `--test-timeout=${FILE_TIMEOUT_MS}`, ...extra, entry]))
      .status;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The unit files: the shared process, and meanwhile the files that run alone (their report after it). */
async function runUnit() {
  const started = Date.now();
  const [status, apart] = await Promise.all([oneProcess(shared), perFile(alone, true)]);
  if (alone.length > 0) {
    for (const f of alone)
      console.log(`# unit, a process of its own: ${source(f)} (${OWN_PROCESS.get(source(f))})`);
    process.stdout.write(apart.output);
  }
  const failed = status || apart.status;
  console.log(`# unit: ${failed === 0 ? "passed" : `failed (exit ${failed})`} in ${seconds(started)}`);
  return failed;
}

async function runSystem() {
  const started = Date.now();
  const native = (await perFile(system)).status;
  console.log(
    `# system, natively: ${native === 0 ? "passed" : `failed (exit ${native})`} in ${seconds(started)}`,
  );
  const guest = guestPass();
  return native || guest;
}

/** The kernel suites again in a cgroup v2 guest, or why not. */
function guestPass() {
  const kernelSuites = files
    .filter((f) => ["dist/src/linux/", "dist/src/runtime/", "dist/test/e2e/"].some((d) => f.startsWith(d)))
    .filter((f) => !NATIVE_ONLY.has(f));
  const skip = process.env.EVICTD_SKIP_V2_GUEST === "1" ? "EVICTD_SKIP_V2_GUEST=1" : guestUnavailable();
  if (skip !== undefined) {
    console.log(`# cgroup v2 suites skipped: ${skip}`);
    return 0;
  }
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
  const guest = run.status ?? 1;
  console.log(`# cgroup v2 suites: ${guest === 0 ? "passed" : `failed (exit ${guest})`}`);
  return guest;
}

/** Why no cgroup v2 guest can run here, or undefined when one can. */
function guestUnavailable() {
  const check = spawnSync("bash", ["scripts/v2-guest.sh", "--check"], { encoding: "utf8" });
  if (check.status === 0) return undefined;
  return (check.stdout || check.stderr || `scripts/v2-guest.sh --check exited ${check.status}`).trim();
}

function seconds(since) {
  return `${Math.round((Date.now() - since) / 1000)} s`;
}

const unitStatus = mode === "system" ? 0 : await runUnit();
const systemStatus = mode === "unit" ? 0 : await runSystem();
process.exit(unitStatus || systemStatus);
