/**
 * Shared harness of the daemon end-to-end suites: a throwaway node (temp dir, node file, state and
 * manifest dirs, optional tmpfs mounts), `evictd run` as a real child process whose JSON-line logs
 * are parsed as they arrive, /status and /metrics over HTTP, and a teardown that leaves nothing
 * behind even when the daemon or a test died half-way (leftover cgroups are emptied and removed,
 * tmpfs mounts unmounted). Nothing here imports the code under test, except the daemon's own
 * answer to "which cgroups is this process in" (a read of /proc, the same for the test as for the
 * daemon it starts).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locateOwnCgroups } from "../../src/linux/cgroups/detect-cgroups.js";
import { REPO_ROOT } from "../support/repo-paths.js";
import { parseMountinfo } from "../../src/linux/procfs.js";
import { scaled } from "../../src/testing/slowdown.js";

// ---------------------------------------------------------------------------------------------
// Whether the suites can run here

/** The cgroup v1 hierarchies (or the v2 mount) this process sits in, from /proc/self/cgroup and mountinfo. */
export interface OwnCgroupDirs {
  readonly memory: string | undefined;
  readonly pids: string | undefined;
  /** The cgroup2 directory (v2, or the unified mirror on a hybrid host). */
  readonly unified: string | undefined;
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/**
 * Where each hierarchy is mounted and where this process sits in it, as the daemon finds its own
 * (the daemon runs as this process's child, in the same cgroups).
 */
export function ownCgroupDirs(): OwnCgroupDirs {
  const own = locateOwnCgroups();
  return { memory: own.memory?.dir, pids: own.pids?.dir, unified: own.unified?.dir };
}

export { REPO_ROOT };

/** The built CLI. */
export const EVICTD_BIN = join(REPO_ROOT, "bin", "evictd.js");

function skipReason(): string | false {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "not root: the daemon cannot create cgroups or mount tmpfs";
  if (!existsSync(join(REPO_ROOT, "dist", "src", "cli", "main.js")))
    return "evictd is not built: run `npm run build` first";
  const own = ownCgroupDirs();
  if (own.memory === undefined || !existsSync(join(own.memory, "cgroup.procs"))) return "no memory cgroup";
  return false;
}

/** Why the daemon e2e suites cannot run here, or false (printed once per file when skipping). */
export const E2E_SKIP: string | false = skipReason();
if (E2E_SKIP !== false) console.error(`# daemon e2e skipped: ${E2E_SKIP}`);

// ---------------------------------------------------------------------------------------------
// Small waits

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// Every wait here ({@link waitUntil} and all built on it, the daemon's start and stop, test
// timeouts) stretches by the slowdown factor of the cgroup v2 guest.
export { SLOWDOWN, scaled } from "../../src/testing/slowdown.js";

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs` with `what` and `context()`. */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  context: () => string = () => "",
  pollMs = 100,
): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      assert.fail(`timed out after ${scaled(timeoutMs)} ms waiting for ${what}${context()}`);
    await sleep(pollMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Manifests

/** A container command: `sh -c SCRIPT`. */
export const sh = (script: string): string[] => ["/bin/sh", "-c", script];

/**
 * perl allocating and touching `mib` MiB in 1 MiB strings (a single `"a" x N` would briefly need
 * twice N), then sleeping, optionally ignoring SIGTERM.
 */
export function holdMemory(mib: number, options: { ignoreTerm?: boolean } = {}): string[] {
  const ignore = options.ignoreTerm === true ? "$SIG{TERM} = 'IGNORE'; " : "";
  return ["/usr/bin/perl", "-e", `${ignore}my @a; push @a, "a" x 1048576 for 1 .. ${mib}; sleep 600;`];
}

/** perl growing by `stepMib` MiB every `everyMs` ms: forever (a leak), or up to `upToMib` MiB and then holding it. */
export function leakMemory(stepMib: number, everyMs: number, upToMib?: number): string[] {
  const grow = `push @a, "a" x 1048576 for 1 .. ${stepMib}; select(undef, undef, undef, ${everyMs / 1000});`;
  const body =
    upToMib === undefined
      ? `while (1) { ${grow} }`
      : `for (1 .. ${Math.ceil(upToMib / stepMib)}) { ${grow} } sleep 600;`;
  return ["/usr/bin/perl", "-e", `my @a; ${body}`];
}

export const IDLE = ["sleep", "600"];

export interface ContainerOptions {
  readonly name: string;
  readonly command: readonly string[];
  readonly requests?: Record<string, string>;
  readonly limits?: Record<string, string>;
}

export interface PodOptions {
  readonly name: string;
  readonly namespace?: string;
  readonly containers: readonly ContainerOptions[];
  readonly annotations?: Record<string, string>;
  readonly priority?: number;
  readonly priorityClassName?: string;
  readonly terminationGracePeriodSeconds?: number;
  readonly restartPolicy?: string;
  readonly volumes?: readonly Record<string, unknown>[];
  readonly tolerations?: readonly Record<string, unknown>[];
}

/** A Pod manifest object. */
export function podManifest(o: PodOptions): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: o.name,
      namespace: o.namespace ?? "default",
      ...(o.annotations !== undefined ? { annotations: o.annotations } : {}),
    },
    spec: {
      ...(o.restartPolicy !== undefined ? { restartPolicy: o.restartPolicy } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.priorityClassName !== undefined ? { priorityClassName: o.priorityClassName } : {}),
      ...(o.terminationGracePeriodSeconds !== undefined
        ? { terminationGracePeriodSeconds: o.terminationGracePeriodSeconds }
        : {}),
      ...(o.tolerations !== undefined ? { tolerations: o.tolerations } : {}),
      containers: o.containers.map((c) => ({
        name: c.name,
        command: c.command,
        resources: {
          ...(c.requests !== undefined ? { requests: c.requests } : {}),
          ...(c.limits !== undefined ? { limits: c.limits } : {}),
        },
        ...(o.volumes !== undefined && o.volumes.length > 0
          ? {
              volumeMounts: o.volumes.map((v) => ({
                name: String(v["name"]),
                mountPath: `/${String(v["name"])}`,
              })),
            }
          : {}),
      })),
      ...(o.volumes !== undefined ? { volumes: o.volumes } : {}),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The node under test

export interface NodeFileOptions {
  readonly capacity: { readonly memory: string; readonly pids?: number };
  readonly systemReserved?: Record<string, string | number>;
  readonly kubeReserved?: Record<string, string | number>;
  readonly config: Record<string, unknown>;
  readonly flags?: readonly string[];
  readonly housekeepingInterval?: string;
  readonly notifications?: boolean;
  /** The node file's `decisionLog` rotation bounds (default: the daemon's). */
  readonly decisionLog?: { readonly maxSize?: string; readonly maxFiles?: number };
  /** Defaults: an ephemeral loopback port, and the node's own state and manifest directories. */
  readonly listen?: string;
  readonly stateDir?: string;
  readonly manifestDir?: string;
}

/** A throwaway node: temp dir, unique name, node file, state and manifest dirs; {@link cleanup} removes all of it. */
export class TestNode {
  readonly name: string;
  readonly dir: string;
  readonly stateDir: string;
  readonly manifestDir: string;
  readonly nodeFile: string;
  readonly daemons: Daemon[] = [];
  /** tmpfs mounts the test made itself (the daemon's own are checked against this). */
  readonly testMounts: string[] = [];

  private constructor(name: string, dir: string) {
    this.name = name;
    this.dir = dir;
    this.stateDir = join(dir, "state");
    this.manifestDir = join(dir, "pods");
    this.nodeFile = join(dir, "node.yaml");
  }

  /** A node named `e2e-<label>-<random>` in a fresh temp dir. */
  static async create(label: string): Promise<TestNode> {
    const dir = await mkdtemp(join(tmpdir(), `evictd-e2e-${label}-`));
    const node = new TestNode(`e2e-${label}-${randomBytes(4).toString("hex")}`, dir);
    await mkdir(node.stateDir, { recursive: true });
    await mkdir(node.manifestDir, { recursive: true });
    return node;
  }

  /** The node's cgroup directory name under the daemon's (= this process's) own cgroups. */
  get cgroupName(): string {
    return `evictd-${this.name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 50)}`;
  }

  /** The node's cgroup directories that exist now (memory, pids, unified mirror). */
  cgroupDirs(): string[] {
    const own = ownCgroupDirs();
    return [...new Set([own.memory, own.pids, own.unified])]
      .filter((d): d is string => d !== undefined)
      .map((d) => join(d, this.cgroupName))
      .filter((d) => existsSync(d));
  }

  /** The node cgroup's memory directory (while the daemon runs). */
  memoryCgroupDir(): string {
    const own = ownCgroupDirs().memory;
    assert.ok(own !== undefined, "no memory cgroup");
    return join(own, this.cgroupName);
  }

  /** Bytes the node's memory cgroup charges now (v2 `memory.current`, v1 `memory.usage_in_bytes`). */
  memoryUsage(): number {
    const dir = this.memoryCgroupDir();
    const v2 = join(dir, "memory.current");
    return Number(readFileSync(existsSync(v2) ? v2 : join(dir, "memory.usage_in_bytes"), "utf8").trim());
  }

  /** Mounts a tmpfs at `dir` (created if needed), e.g. `size=96m` or `size=64m,nr_inodes=2000`. */
  mountTmpfs(dir: string, options: string): void {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { encoding: "utf8" });
    assert.equal(r.status, 0, `mount tmpfs at ${dir}: ${r.stderr}`);
    this.testMounts.push(dir);
  }

  /** Writes the node file; `listen` is always 127.0.0.1:0. */
  async writeNodeFile(o: NodeFileOptions): Promise<void> {
    const doc = {
      apiVersion: "evictd.io/v1alpha1",
      kind: "EvictdNode",
      name: this.name,
      capacity: o.capacity,
      ...(o.systemReserved !== undefined ? { systemReserved: o.systemReserved } : {}),
      ...(o.kubeReserved !== undefined ? { kubeReserved: o.kubeReserved } : {}),
      stateDir: o.stateDir ?? this.stateDir,
      manifestDir: o.manifestDir ?? this.manifestDir,
      config: o.config,
      ...(o.flags !== undefined ? { flags: o.flags } : {}),
      housekeepingInterval: o.housekeepingInterval ?? "1s",
      listen: o.listen ?? "127.0.0.1:0",
      ...(o.notifications !== undefined ? { notifications: o.notifications } : {}),
      ...(o.decisionLog !== undefined ? { decisionLog: o.decisionLog } : {}),
    };
    // JSON is YAML.
    await writeFile(this.nodeFile, JSON.stringify(doc, null, 2) + "\n");
  }

  /** Drops a manifest into the manifest dir atomically (written as a dot file, then renamed). */
  async addPod(manifest: Record<string, unknown>): Promise<void> {
    const meta = manifest["metadata"] as { name: string };
    const tmp = join(this.manifestDir, `.${meta.name}.json.tmp`);
    await writeFile(tmp, JSON.stringify(manifest, null, 2) + "\n");
    await rename(tmp, join(this.manifestDir, `${meta.name}.json`));
  }

  /** Starts `evictd run` on this node and waits until it serves HTTP. */
  async start(options: { cleanupOnExit?: boolean; wrapper?: readonly string[] } = {}): Promise<Daemon> {
    const daemon = Daemon.spawn(this.nodeFile, options.cleanupOnExit ?? true, options.wrapper);
    this.daemons.push(daemon);
    await daemon.ready();
    return daemon;
  }

  /** The decision log, one parsed record per line, oldest first: the rotated files (`.N` … `.1`), then the live one. */
  async decisions(): Promise<DecisionRecord[]> {
    const rotated = readdirSync(this.stateDir)
      .map((name) => /^decisions\.jsonl\.([1-9][0-9]*)$/.exec(name)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => b - a);
    const files = [...rotated.map((n) => `decisions.jsonl.${n}`), "decisions.jsonl"];
    const texts = await Promise.all(
      files.map((f) => readFile(join(this.stateDir, f), "utf8").catch(() => "")),
    );
    return texts
      .join("")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as DecisionRecord);
  }

  /**
   * Kernel OOM kills anywhere in the node's memory subtree (v1: `oom_kill` in each cgroup's
   * memory.oom_control counts its own victims only, so the subtree is summed; v2: memory.events).
   */
  oomKills(): number {
    let total = 0;
    const walk = (dir: string): void => {
      const v1 = readText(join(dir, "memory.oom_control"));
      const v2 = readText(join(dir, "memory.events"));
      const m = /^oom_kill (\d+)$/m.exec(v1 !== "" ? v1 : v2);
      if (m !== null) total += Number(m[1]);
      if (v1 === "" && v2 !== "") return; // v2 counts are hierarchical
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return; // Removed while we walk (an evicted pod's cgroup): its victims are the ramp's own outcome.
      }
      for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
    };
    const dir = this.memoryCgroupDir();
    if (existsSync(dir)) walk(dir);
    return total;
  }

  /**
   * Teardown, whatever state the test left: SIGKILL every daemon still alive, kill whatever still
   * runs in the node's cgroups and remove them deepest first, unmount every tmpfs under the temp
   * dir, delete it. Returns what had to be cleaned up by force (for assertions in tests that
   * expect --cleanup-on-exit to have done it already).
   */
  async cleanup(): Promise<{ leftoverCgroups: string[] }> {
    for (const d of this.daemons) await d.kill();
    const leftoverCgroups = this.cgroupDirs();
    for (const dir of leftoverCgroups) await destroyCgroupTree(dir);
    for (const mountPoint of mountsUnder(this.dir)) {
      const r = spawnSync("umount", [mountPoint]);
      if (r.status !== 0) spawnSync("umount", ["-l", mountPoint]);
    }
    await rm(this.dir, { recursive: true, force: true });
    const still = this.cgroupDirs();
    assert.deepEqual(still, [], `cgroups of node ${this.name} could not be removed`);
    assert.deepEqual(mountsUnder(this.dir), [], `mounts under ${this.dir} could not be removed`);
    return { leftoverCgroups };
  }
}

/** Mount points at or under `dir`, deepest first. */
export function mountsUnder(dir: string): string[] {
  return parseMountinfo(readText("/proc/self/mountinfo"))
    .map((m) => m.mountPoint)
    .filter((mp) => mp === dir || mp.startsWith(dir + "/"))
    .sort((a, b) => b.length - a.length);
}

function subtree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    out.push(d);
    let entries: string[] = [];
    try {
      entries = readdirSync(d).filter((e) => {
        try {
          return statSync(join(d, e)).isDirectory();
        } catch {
          return false;
        }
      });
    } catch {
      return;
    }
    for (const e of entries) walk(join(d, e));
  };
  walk(dir);
  return out;
}

function procsIn(dirs: readonly string[]): number[] {
  const pids = new Set<number>();
  for (const d of dirs)
    for (const l of readText(join(d, "cgroup.procs")).split("\n")) if (l.trim() !== "") pids.add(Number(l));
  return [...pids];
}

/** Kills everything in a cgroup subtree (cgroup.kill where the kernel has it), then removes it deepest first. */
async function destroyCgroupTree(dir: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const dirs = subtree(dir);
    const pids = procsIn(dirs);
    if (pids.length === 0) break;
    if (existsSync(join(dir, "cgroup.kill")))
      await writeFile(join(dir, "cgroup.kill"), "1").catch(() => undefined);
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    if (Date.now() > deadline) break;
    await sleep(50);
  }
  for (const d of subtree(dir).reverse()) {
    for (let i = 0; i < 20; i++) {
      try {
        rmdirSync(d);
        break;
      } catch {
        await sleep(50);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The daemon

/** One JSON log line of the daemon (pino): level 30 info, 40 warn, 50 error. */
export interface LogLine {
  readonly level: number;
  readonly time: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface PodStatus {
  readonly pod: string;
  readonly uid: string;
  readonly phase: string;
  readonly reason?: string;
  readonly message?: string;
  readonly qosClass: string;
  readonly priority: number;
  readonly conditions: readonly { type: string; status: string; reason?: string; message?: string }[];
  readonly restarts: Readonly<Record<string, number>>;
}

/** The parts of /status the suites read. */
export interface StatusDoc {
  readonly conditions: readonly { type: string; status: string }[];
  readonly lastSync: { time: string; actedOn: string | null; outcome: string } | null;
  readonly signals: readonly {
    signal: string;
    available?: string;
    capacity?: string;
    thresholds: readonly { type: string; value: string; state: string }[];
    /** memory.available only: the node's memory three ways, evictd's additions. */
    evictdAdditions?: {
      note: string;
      capacity: string;
      kubelet: { available: string; formula: string };
      kernelAvailable?: { available: string };
      withKernelMemory?: { available: string; alreadyInKubeletFigure: boolean };
    };
  }[];
  readonly pods: readonly PodStatus[];
  readonly ranking: {
    signal: string;
    next: string | null;
    order: readonly { pod: string; critical: boolean; reason: string }[];
  } | null;
  readonly recentEvictions: readonly {
    time: string;
    pod: string;
    signal: string;
    gracePeriodSeconds: number;
    message: string;
  }[];
  readonly evictionCounts: Readonly<Record<string, number>>;
}

/** One line of `<stateDir>/decisions.jsonl` (the replay step record plus the wake). */
export interface DecisionRecord {
  readonly type: string;
  readonly at: string;
  readonly time?: string;
  readonly conditions: readonly string[];
  readonly observations?: Readonly<Record<string, { available: string; capacity: string; time?: string }>>;
  readonly thresholdsMet?: readonly { signal: string; value: string; gracePeriod: string }[];
  readonly actedOn?: { signal: string } | null;
  readonly reclaim?: { ran: readonly string[]; sufficient: boolean } | null;
  readonly evictions?: readonly {
    pod: string;
    kind: string;
    signal: string;
    gracePeriodSeconds: number;
    effectiveGracePeriodSeconds: number;
    message: string;
    condition?: { type: string; status: string; reason: string };
  }[];
  readonly refused?: readonly { pod: string; reason: string }[];
  readonly ranking?: readonly string[];
  readonly wake?: { reason: string; notification: boolean };
  readonly outcome?: string;
}

/** `evictd run` as a child process. */
export class Daemon {
  readonly child: ChildProcess;
  readonly lines: LogLine[] = [];
  /** The log lines as written (JSON.parse keeps only the last of duplicated keys). */
  readonly rawLines: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  url = "";
  #alive = true;
  #partial = "";

  private constructor(child: ChildProcess) {
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.#alive = false;
        resolve({ code, signal });
      });
    });
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      const text = this.#partial + chunk;
      const parts = text.split("\n");
      this.#partial = parts.pop() ?? "";
      for (const p of parts) {
        if (p.trim() === "") continue;
        this.rawLines.push(p);
        try {
          this.lines.push(JSON.parse(p) as LogLine);
        } catch {
          this.lines.push({ level: 50, time: new Date().toISOString(), msg: `unparsed stdout: ${p}` });
        }
      }
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => this.stderr.push(chunk));
  }

  /** Starts `evictd run`; `wrapper` runs it through another program (e.g. setpriv to drop root). */
  static spawn(nodeFile: string, cleanupOnExit: boolean, wrapper: readonly string[] = []): Daemon {
    const args = [EVICTD_BIN, "run", "--node", nodeFile, ...(cleanupOnExit ? ["--cleanup-on-exit"] : [])];
    const [program, ...before] = [...wrapper, process.execPath];
    return new Daemon(
      spawn(program ?? process.execPath, [...before, ...args], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1" },
      }),
    );
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** The last log lines and stderr, for failure messages. */
  tail(n = 25): string {
    const out = this.lines.slice(-n).map((l) => JSON.stringify(l));
    const err = this.stderr.join("").trim();
    return `\n--- daemon log (last ${n} lines) ---\n${out.join("\n")}${err !== "" ? `\n--- stderr ---\n${err}` : ""}`;
  }

  /** Waits for the "evictd running" line and takes the URL from it. */
  async ready(timeoutMs = 15_000): Promise<void> {
    const line = await this.waitForLine(
      "the evictd running line",
      (l) => l.msg.startsWith("evictd running") && typeof l["url"] === "string",
      timeoutMs,
    );
    this.url = String(line["url"]);
  }

  /** The first log line matching `match` (already seen or arriving within `timeoutMs`). */
  waitForLine(what: string, match: (l: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
    return waitUntil(
      what,
      () => {
        const found = this.lines.find(match);
        if (found === undefined && !this.#alive)
          assert.fail(`the daemon exited while waiting for ${what}${this.tail()}`);
        return found;
      },
      timeoutMs,
      () => this.tail(),
      50,
    );
  }

  /** GET /status; a daemon that does not answer within `timeoutMs` is an error (TimeoutError). */
  async status(timeoutMs = 10_000): Promise<StatusDoc> {
    const r = await fetch(`${this.url}/status`, { signal: AbortSignal.timeout(scaled(timeoutMs)) });
    assert.equal(r.status, 200);
    return (await r.json()) as StatusDoc;
  }

  async metrics(): Promise<string> {
    const r = await fetch(`${this.url}/metrics`);
    assert.equal(r.status, 200);
    return r.text();
  }

  /** Polls /status until `probe` returns something. */
  waitForStatus<T>(what: string, probe: (s: StatusDoc) => T | undefined, timeoutMs: number): Promise<T> {
    let last: StatusDoc | undefined;
    return waitUntil(
      what,
      async () => {
        if (!this.#alive) assert.fail(`the daemon exited while waiting for ${what}${this.tail()}`);
        try {
          last = await this.status();
        } catch (e) {
          // A daemon busy answering other clients (the reaction bench under HTTP load): ask again
          // until the wait's own deadline.
          if (e instanceof Error && e.name === "TimeoutError") return undefined;
          throw e;
        }
        return probe(last);
      },
      timeoutMs,
      () =>
        `\n--- last /status pods ---\n${JSON.stringify(last?.pods.map((p) => [p.pod, p.phase, p.reason ?? ""]))}\nconditions ${JSON.stringify(last?.conditions)}${this.tail()}`,
      100,
    );
  }

  /** SIGTERM, then the exit status (SIGKILL and a failure after `timeoutMs`). */
  async stop(timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.#alive) this.child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), scaled(timeoutMs));
    });
    const r = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (r === "timeout") {
      await this.kill();
      assert.fail(`the daemon did not stop within ${timeoutMs} ms of SIGTERM${this.tail()}`);
    }
    return r;
  }

  /** SIGKILL if still alive, and wait for the exit. */
  async kill(): Promise<void> {
    if (!this.#alive) return;
    this.child.kill("SIGKILL");
    await this.exited;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading results

/** The value of one Prometheus sample `name{labels}`, or undefined when absent. */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got = new Map<string, string>();
    for (const lm of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      got.set(lm[1] ?? "", lm[2] ?? "");
    if (Object.entries(labels).every(([k, v]) => got.get(k) === v)) return Number(m[3]);
  }
  return undefined;
}

/** Sum of every `kubelet_evictions` sample. */
export function totalEvictions(text: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^kubelet_evictions(?:\{.*\})?\s+(\S+)/.exec(line);
    if (m !== null) sum += Number(m[1]);
  }
  return sum;
}

export function podStatus(s: StatusDoc, key: string): PodStatus | undefined {
  return s.pods.find((p) => p.pod === key);
}

/** The status once the pod is Failed with reason Evicted. */
export function evicted(key: string): (s: StatusDoc) => PodStatus | undefined {
  return (s) => {
    const p = podStatus(s, key);
    return p?.phase === "Failed" && p.reason === "Evicted" ? p : undefined;
  };
}

export function condition(s: StatusDoc, type: string): string | undefined {
  return s.conditions.find((c) => c.type === type)?.status;
}

/** ms since the epoch of a log line. */
export const lineTime = (l: LogLine): number => Date.parse(l.time);

/** What is left once the daemon has stopped. */
export interface StopReport {
  readonly exit: { code: number | null; signal: NodeJS.Signals | null };
  readonly stoppedLine: boolean;
  /** The node's cgroup directories still present. */
  readonly cgroupsLeft: readonly string[];
  /** Mounts under the node's temp dir other than those the test made itself (pod tmpfs volumes). */
  readonly mountsLeft: readonly string[];
}

/** SIGTERM, wait for the exit, and look at what was left behind. */
export async function stopAndInspect(node: TestNode, daemon: Daemon): Promise<StopReport> {
  const exit = await daemon.stop();
  return {
    exit,
    stoppedLine: daemon.lines.some((l) => l.msg === "evictd stopped"),
    cgroupsLeft: node.cgroupDirs(),
    mountsLeft: mountsUnder(node.dir).filter((m) => !node.testMounts.includes(m)),
  };
}

/**
 * The standard ending of every scenario: SIGTERM, exit 0, "evictd stopped" logged, and (with
 * --cleanup-on-exit) the node's cgroups gone and no pod volume left mounted.
 */
export async function stopAndCheckClean(node: TestNode, daemon: Daemon): Promise<void> {
  const r = await stopAndInspect(node, daemon);
  assert.deepEqual(r.exit, { code: 0, signal: null }, `evictd run must exit 0 on SIGTERM${daemon.tail()}`);
  assert.ok(r.stoppedLine, `no "evictd stopped" line${daemon.tail()}`);
  assert.deepEqual(r.cgroupsLeft, [], "--cleanup-on-exit must remove the node's cgroups");
  assert.deepEqual(r.mountsLeft, [], "--cleanup-on-exit must unmount the pods' tmpfs volumes");
}
