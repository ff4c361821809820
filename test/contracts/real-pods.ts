/**
 * A node of real pods for the PodsPort contract: a ProcessPodRuntime in a temporary state
 * directory, in a cgroup node of its own or without cgroups, running tiny pods (`sleep`), and the
 * contract's subject for a pods port over it (the runtime itself, a dry run's, the loop thread's).
 * Its close kills what is left and removes the processes, the cgroups and the files.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClockPort, LoggerPort, PodsPort } from "../../src/app/ports.js";
import { parseNodeSpec } from "../../src/core/node/node-spec.js";
import type { CgroupDriver } from "../../src/linux/cgroups/cgroup-driver.js";
import { createCgroupDriver } from "../../src/linux/cgroups/create-cgroup-driver.js";
import { detectOwnCgroups } from "../../src/linux/cgroups/detect-cgroups.js";
import { ProcessPodRuntime } from "../../src/runtime/pod-runtime.js";
import { parseManifestText } from "../../src/runtime/read-manifest-file.js";
import type { RunnablePod } from "../../src/runtime/runnable-pod.js";
import { scaled } from "../../src/testing/slowdown.js";
import { evictedStatus, type PodsPortSubject } from "./pods-port.contract.js";

const detection = process.platform === "linux" ? await detectOwnCgroups() : undefined;

/** Why pods cannot run in cgroups here, or false when they can. */
export const cgroupSkip: string | false = ((): string | false => {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "not root";
  const choice = detection === undefined ? undefined : createCgroupDriver(detection);
  return choice?.ok === true ? false : (choice?.reason ?? "no cgroups");
})();

/** Why pods cannot run here at all, or false when they can. */
export const processSkip: string | false = process.platform !== "linux" ? "not Linux" : false;

/** The restart back-off of the contract's runtimes: short, so a pod that would come back does so soon. */
export const BACKOFF = { baseMs: 300, maxMs: 1200 } as const;

export const systemClock: ClockPort = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
    }),
};

/** A logger that keeps the latest lines (shown when a wait times out). */
export class RecentLog implements LoggerPort {
  readonly #lines: string[] = [];
  info(fields: Record<string, unknown>, message: string): void {
    this.#push("info", fields, message);
  }
  warn(fields: Record<string, unknown>, message: string): void {
    this.#push("warn", fields, message);
  }
  error(fields: Record<string, unknown>, message: string): void {
    this.#push("error", fields, message);
  }
  text(): string {
    return this.#lines.join("\n");
  }
  #push(level: string, fields: Record<string, unknown>, message: string): void {
    this.#lines.push(`${new Date().toISOString()} ${level} ${message} ${JSON.stringify(fields)}`);
    if (this.#lines.length > 40) this.#lines.shift();
  }
}

export interface RealPodsOptions {
  /** In a cgroup node of its own (root, cgroups), or without cgroups. */
  readonly cgroups: boolean;
  /** Passed to the runtime: a loop thread's kills are taken in before any exit is handled. */
  readonly takeInKills?: () => void;
  /** Passed to the runtime: the active pods may have changed. */
  readonly onPodsChanged?: () => void;
}

let pods = 0;

async function until(what: string, check: () => boolean | Promise<boolean>, log: RecentLog): Promise<void> {
  const deadline = Date.now() + scaled(10_000);
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}\n${log.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The runtime and what it runs in; see the module comment. */
export class RealPodsNode {
  readonly runtime: ProcessPodRuntime;
  readonly log: RecentLog;
  readonly #driver: CgroupDriver | undefined;
  readonly #nodeName: string;
  readonly #stateDir: string;

  private constructor(
    runtime: ProcessPodRuntime,
    log: RecentLog,
    driver: CgroupDriver | undefined,
    nodeName: string,
    stateDir: string,
  ) {
    this.runtime = runtime;
    this.log = log;
    this.#driver = driver;
    this.#nodeName = nodeName;
    this.#stateDir = stateDir;
  }

  static async start(options: RealPodsOptions): Promise<RealPodsNode> {
    const stateDir = await mkdtemp(join(tmpdir(), "evictd-pods-contract-"));
    const nodeName = `evictd-contract-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
    const parsed = parseNodeSpec({
      raw: { capacity: { memory: "4Gi" }, stateDir, manifestDir: join(stateDir, "manifests") },
      hostname: "contract-node",
    });
    assert.ok(parsed.ok);
    let driver: CgroupDriver | undefined;
    try {
      if (options.cgroups) {
        assert.ok(detection !== undefined);
        const choice = createCgroupDriver(detection);
        assert.ok(choice.ok, choice.ok ? "" : choice.reason);
        driver = choice.driver;
        await driver.createNode({
          name: nodeName,
          memoryLimitBytes: 1n << 30n,
          pods: { memoryLimitBytes: 512n << 20n },
        });
      }
    } catch (error) {
      await rm(stateDir, { recursive: true, force: true });
      throw error;
    }
    const log = new RecentLog();
    const runtime = new ProcessPodRuntime({
      cgroups: driver,
      node: parsed.spec,
      clock: systemClock,
      logger: log,
      backoff: BACKOFF,
      pollIntervalMs: 100,
      killTimeoutMs: scaled(5000),
      ...(options.takeInKills !== undefined ? { takeInKills: options.takeInKills } : {}),
      ...(options.onPodsChanged !== undefined ? { onPodsChanged: options.onPodsChanged } : {}),
    });
    return new RealPodsNode(runtime, log, driver, nodeName, stateDir);
  }

  /** A pod of one container `c` with this command, a fresh UID and the given restart policy. */
  #manifest(name: string, command: string, restartPolicy = "Always"): RunnablePod {
    pods++;
    const uid = `0000${process.pid.toString(16).padStart(4, "0")}-0000-4000-8000-${String(pods).padStart(12, "0")}`;
    const read = parseManifestText(
      `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, uid: ${uid} }\nspec:\n` +
        `  restartPolicy: ${restartPolicy}\n  terminationGracePeriodSeconds: 1\n` +
        `  containers:\n  - name: c\n    command: ${command}\n`,
      `${name}.yaml`,
    );
    assert.deepEqual(read.issues, []);
    const pod = read.pods[0];
    assert.ok(pod !== undefined);
    return pod;
  }

  /**
   * Starts pods running `sleep`, in order, and resolves once each runs it (past the shim). A
   * lingering pod's `sleep` ignores SIGTERM (inherited through exec), so only SIGKILL ends it.
   */
  async addPods(names: readonly string[], lingering: boolean): Promise<RunnablePod[]> {
    const command = lingering ? `[sh, -c, 'trap "" TERM; exec sleep 600']` : `[sleep, "600"]`;
    const out: RunnablePod[] = [];
    for (const name of names) {
      const pod = this.#manifest(name, command);
      await this.runtime.start(pod);
      out.push(pod);
    }
    for (const pod of out)
      await until(
        `${pod.key} runs sleep`,
        async () => {
          const pids = await this.pids(pod);
          return pids.some((pid) => comm(pid) === "sleep");
        },
        this.log,
      );
    return out;
  }

  /** A pod that ran to its end (`true`, restartPolicy Never: Succeeded) and one refused admission. */
  async addEndedPods([endedName, refusedName]: readonly [string, string]): Promise<RunnablePod[]> {
    const ended = this.#manifest(endedName, "[/bin/true]", "Never");
    await this.runtime.start(ended);
    await until(
      `${ended.key} succeeded`,
      () => this.runtime.status(ended.uid)?.phase === "Succeeded",
      this.log,
    );
    const refused = this.#manifest(refusedName, `[sleep, "600"]`);
    await this.runtime.reject(refused, {
      phase: "Failed",
      reason: "OutOfmemory",
      message: "Node didn't have enough resource: memory",
      conditions: [],
    });
    return [ended, refused];
  }

  /** The pod's live processes, as the runtime finds them. */
  async pids(pod: RunnablePod): Promise<number[]> {
    return (await this.runtime.podProcesses(pod)).flatMap((c) => c.pids);
  }

  /** The message of the pod's status as the runtime keeps it (what its status file says). */
  statusMessage(pod: RunnablePod): string | undefined {
    return this.runtime.status(pod.uid)?.message;
  }

  /**
   * The contract's subject for `port`, a pods port over this node's pods: what the node does (adds
   * pods, reads their processes and statuses, closes), the port what it is asked to. The runtime
   * ends its own kills, and a killed pod would come back after a restart's back-off.
   */
  subject(port: PodsPort): PodsPortSubject {
    return {
      port,
      addPods: (names, options) => this.addPods(names, options?.lingering === true),
      addEndedPods: (names) => this.addEndedPods(names),
      settle: () => this.runtime.flush(),
      letGo: () => Promise.resolve(),
      comebackMs: 2 * BACKOFF.maxMs,
      pids: (pod) => this.pids(pod),
      statusMessage: (pod) => Promise.resolve(this.statusMessage(pod)),
      status: (pod) => Promise.resolve(this.runtime.status(pod.uid)),
      recentLog: () => this.log.text(),
      close: () => this.close(),
    };
  }

  /** Kills every pod still running, then removes the cgroups, the processes and the files. */
  async close(): Promise<void> {
    const status = evictedStatus("the contract's node is torn down");
    try {
      this.runtime.stopRestarts();
      for (const view of this.runtime.statusViews()) {
        if (await this.runtime.isCleanedUp(view.pod)) continue;
        await (
          await this.runtime.kill(view.pod, 0, status)
        ).done;
        // What isCleanedUp releases (cgroups, volumes) goes too.
        await until(`${view.pod.key} is cleaned up`, () => this.runtime.isCleanedUp(view.pod), this.log);
      }
      await this.runtime.close();
    } finally {
      if (this.#driver !== undefined) await this.#driver.destroyNode({ name: this.#nodeName });
      await rm(this.#stateDir, { recursive: true, force: true });
    }
  }
}

function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined;
  }
}
