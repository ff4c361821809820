/**
 * A wake's sample and decision: the scope each kind of wake reads, the complete read a pick on
 * carried-over figures calls for, a memory wake's pick on bounds, the decision again without refused
 * pods, and the decision recorded once the kills are out.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import { INITIAL_STATE, synchronize } from "../../core/engine/index.js";
import { IssueList } from "../../core/issues.js";
import type { EvictionConfig, NodeStats, Pod, PodStats } from "../../core/model.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import type { StatsPort, StatsSample, StatsScope, Wake } from "../ports.js";
import { decideOnWake, readForWake, scopeOfWake, type WakeEngine, type WakeRead } from "./wake-decision.js";

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;
const NOW = 1_000_000;

interface PodFigures {
  readonly usage: bigint;
  readonly ws: bigint;
  readonly procs?: bigint;
}

/** a's usage is mostly inactive file pages; d's working set is the largest. */
const FIGURES: Readonly<Record<string, PodFigures>> = {
  a: { usage: 600n * Mi, ws: 100n * Mi, procs: 10n },
  b: { usage: 300n * Mi, ws: 290n * Mi, procs: 20n },
  c: { usage: 300n * Mi, ws: 280n * Mi, procs: 30n },
  d: { usage: 350n * Mi, ws: 350n * Mi, procs: 40n },
};

/** Memory at 50Mi available: below the 100Mi of {@link MEMORY}. */
const LOW_MEMORY: NodeStats = {
  systemContainers: [],
  memory: { time: NOW, availableBytes: 50n * Mi, workingSetBytes: 974n * Mi },
};

function evictionHard(thresholds: Record<string, string>): EvictionConfig {
  const r = buildEvictionConfig({
    config: {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      evictionHard: thresholds,
    },
  });
  assert.ok(r.ok);
  return r.config;
}
const MEMORY = evictionHard({ "memory.available": "100Mi" });

/** Pods a–d, each container requesting 1Mi. */
const PODS: readonly Pod[] = decodePodList(
  ["a", "b", "c", "d"].map((name) => ({
    metadata: { name },
    spec: { containers: [{ name: "c", resources: { requests: { memory: "1Mi" } } }] },
  })),
  "pods",
  new IssueList(),
);
const uidOf = (name: string): string => PODS.find((p) => p.name === name)?.uid ?? "";
const nameOf = (uid: string): string => PODS.find((p) => p.uid === uid)?.name ?? uid;

/**
 * A node's stats: `memory` reads give each pod's usage alone, `node` reads the pods' figures of an
 * earlier read when `stale` is set, `all` reads and `refreshPods` every figure as it is now.
 */
class FakeStats implements StatsPort {
  readonly scopes: StatsScope[] = [];
  /** The pods named to each `refreshPods`, by name. */
  readonly refreshed: string[][] = [];
  node: NodeStats = LOW_MEMORY;
  stale: Readonly<Record<string, PodFigures>> | undefined;
  failure: Error | undefined;
  /** A pod that `refreshPods` finds grown past every other, named or not. */
  grown: string | undefined;

  #entry(pod: PodStats["podRef"], f: PodFigures | undefined, full: boolean): PodStats {
    const usage = f?.usage ?? 0n;
    return {
      podRef: pod,
      memory: full
        ? { time: NOW, usageBytes: usage, workingSetBytes: f?.ws ?? 0n }
        : { time: NOW, usageBytes: usage },
      containers: [],
      volumes: [],
      ...(f?.procs !== undefined ? { processCount: f.procs } : {}),
    };
  }

  collect(scope: StatsScope = "all"): Promise<StatsSample> {
    this.scopes.push(scope);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const figures = scope === "node" && this.stale !== undefined ? this.stale : FIGURES;
    const pods = PODS.map((p) =>
      this.#entry({ name: p.name, namespace: p.namespace, uid: p.uid }, figures[p.name], scope !== "memory"),
    );
    return Promise.resolve({ raw: {}, summary: { node: this.node, pods } });
  }

  refreshPods(sample: StatsSample, uids: readonly string[]): Promise<StatsSample> {
    this.refreshed.push(uids.map(nameOf).sort());
    const pods = sample.summary.pods.map((p) => {
      const f = FIGURES[p.podRef.name];
      if (p.podRef.name === this.grown && f !== undefined)
        return this.#entry(p.podRef, { ...f, ws: 900n * Mi }, true);
      return uids.includes(p.podRef.uid) ? this.#entry(p.podRef, f, true) : p;
    });
    return Promise.resolve({ raw: {}, summary: { ...sample.summary, pods } });
  }
}

/** The engine from the initial state on `PODS`; `asked` records the pods of every decision, by name. */
function engineWith(config: EvictionConfig): WakeEngine & { readonly asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    activePods: PODS,
    decide: (summary, activePods) => {
      asked.push(activePods.map((p) => p.name));
      return synchronize(config, INITIAL_STATE, { now: NOW, summary, activePods, layout: "single" });
    },
  };
}

const memcgWake: Wake = { reason: "memcg", at: NOW, notification: true };
const timerWake: Wake = { reason: "timer", at: NOW, notification: false };
const cleanupWake: Wake = { reason: "after eviction cleanup", at: NOW, notification: false };

function quietLog(warnings: string[] = []) {
  return {
    info: () => undefined,
    warn: (_f: object, message: string) => void warnings.push(message),
    error: () => undefined,
  };
}

/** The wake's read and decision on `stats`, under `config`. */
async function decide(wake: Wake, stats: FakeStats, config = MEMORY, warnings: string[] = []) {
  const ports = { stats, log: quietLog(warnings) };
  const engine = engineWith(config);
  const read: WakeRead = await readForWake(wake, ports);
  return { engine, decision: await decideOnWake(read, engine, ports) };
}

const picked = (report: { readonly evictions: readonly { readonly pod: Pod }[] }): string[] =>
  report.evictions.map((e) => e.pod.name);

describe("the read a wake calls for", () => {
  test("a kernel notification reads for a memory decision; the timer and the look after a cleanup read what housekeeping reads", async () => {
    assert.equal(scopeOfWake(memcgWake), "memory");
    assert.equal(scopeOfWake(timerWake), "node");
    assert.equal(scopeOfWake(cleanupWake), "node");
    const stats = new FakeStats();
    const log = quietLog();
    assert.equal((await readForWake(memcgWake, { stats, log })).scope, "memory");
    assert.equal((await readForWake(cleanupWake, { stats, log })).scope, "node");
    assert.deepEqual(stats.scopes, ["memory", "node"]);
  });

  test("a read that fails is logged, and the engine decides without stats: no eviction, the error kept", async () => {
    const stats = new FakeStats();
    stats.failure = new Error("cgroup gone");
    const warnings: string[] = [];
    const { decision } = await decide(memcgWake, stats, MEMORY, warnings);
    assert.deepEqual(warnings, ["Eviction manager: failed to get summary stats"]);
    assert.equal(decision.sample, undefined);
    assert.match(decision.readError ?? "", /cgroup gone/);
    assert.equal(decision.result.kind, "done");
    assert.deepEqual(decision.result.kind === "done" ? picked(decision.result.report) : undefined, []);
  });
});

describe("a pick made on carried-over figures", () => {
  /** Housekeeping shows the pods as they were: a then the largest, d the smallest. */
  const STALE: Record<string, PodFigures> = {
    a: { usage: 400n * Mi, ws: 400n * Mi },
    b: { usage: 300n * Mi, ws: 300n * Mi },
    c: { usage: 200n * Mi, ws: 200n * Mi },
    d: { usage: 100n * Mi, ws: 100n * Mi },
  };

  test("a housekeeping decision that would evict is made again from a complete read, which is the one returned", async () => {
    const stats = new FakeStats();
    stats.stale = STALE;
    const { decision } = await decide(timerWake, stats);
    assert.deepEqual(stats.scopes, ["node", "all"]);
    assert.ok(decision.result.kind === "done");
    assert.deepEqual(picked(decision.result.report), ["d"]);
    assert.equal(
      decision.sample?.summary.pods.find((p) => p.podRef.name === "d")?.memory?.workingSetBytes,
      350n * Mi,
    );
  });

  test("a housekeeping decision that evicts nobody reads nothing more", async () => {
    const stats = new FakeStats();
    stats.stale = STALE;
    stats.node = { systemContainers: [], memory: { time: NOW, availableBytes: 500n * Mi } };
    const { decision } = await decide(timerWake, stats);
    assert.deepEqual(stats.scopes, ["node"]);
    assert.ok(decision.result.kind === "done");
    assert.deepEqual(picked(decision.result.report), []);
  });

  test("a memory wake's pick for PIDs, which its read carries over, is made again from a complete read", async () => {
    const stats = new FakeStats();
    stats.node = {
      systemContainers: [],
      memory: { time: NOW, availableBytes: 500n * Mi },
      rlimit: { time: NOW, maxpid: 1000n, curproc: 950n },
    };
    const { decision } = await decide(memcgWake, stats, evictionHard({ "pid.available": "100" }));
    assert.deepEqual(stats.scopes, ["memory", "all"]);
    assert.ok(decision.result.kind === "done");
    assert.deepEqual(
      decision.result.report.evictions.map((e) => [e.pod.name, e.signal]),
      [["d", "pid.available"]],
    );
  });

  test("a memory wake's pick for memory stands on the wake's read, the picked pods read in full", async () => {
    const stats = new FakeStats();
    const { decision } = await decide(memcgWake, stats);
    assert.deepEqual(stats.scopes, ["memory"]);
    // a has the largest usage, so it is read first; its working set is small, d's bound is next.
    assert.deepEqual(stats.refreshed, [["a"], ["d"]]);
    assert.ok(decision.result.kind === "done");
    assert.deepEqual(picked(decision.result.report), ["d"]);
  });
});

describe("deciding again without refused pods", () => {
  test("the refused pods are left out, and a pick made on bounds is made on bounds again", async () => {
    const stats = new FakeStats();
    const { engine, decision } = await decide(memcgWake, stats);
    const again = await decision.redecideWithout(new Set([uidOf("d")]));
    assert.deepEqual(engine.asked.at(-1), ["a", "b", "c"]);
    // b and c were read by usage alone: both are read in full before b is picked.
    assert.deepEqual(stats.refreshed, [["a"], ["d"], ["b"], ["c"]]);
    assert.deepEqual(stats.scopes, ["memory"]);
    assert.ok(again.kind === "done");
    assert.deepEqual(picked(again.report), ["b"]);
    assert.equal(decision.result, again, "the new decision replaces the wake's");
    assert.equal(
      decision.sample?.summary.pods.find((p) => p.podRef.name === "c")?.memory?.workingSetBytes,
      280n * Mi,
    );
  });

  test("a decision that asked for node-level reclaim is made again from the same sample, for the caller to resume", async () => {
    const stats = new FakeStats();
    stats.node = {
      systemContainers: [],
      memory: { time: NOW, availableBytes: 500n * Mi },
      fs: { time: NOW, availableBytes: 5n * Gi, capacityBytes: 100n * Gi },
    };
    const { engine, decision } = await decide(timerWake, stats, evictionHard({ "nodefs.available": "10%" }));
    const first = decision.result;
    assert.equal(first.kind, "reclaim");
    const sample = decision.sample;
    const again = await decision.redecideWithout(new Set([uidOf("a")]));
    assert.equal(again.kind, "reclaim");
    assert.deepEqual(engine.asked.at(-1), ["b", "c", "d"]);
    assert.deepEqual(stats.scopes, ["node"]);
    assert.equal(decision.result, first, "the wake's decision is the one reclaim resumed");
    assert.equal(decision.sample, sample);
  });
});

describe("the decision recorded after the kills", () => {
  test("after a pick on bounds, killed or not, the picked pod and every pod not read in full are read, and a complete read's decision is recorded", async () => {
    const stats = new FakeStats();
    const { decision } = await decide(memcgWake, stats);
    assert.ok(decision.result.kind === "done");
    const refined = await decision.refine(decision.result.report, false);
    assert.deepEqual(stats.refreshed.at(-1), ["b", "c", "d"]);
    assert.deepEqual(picked(refined?.report ?? { evictions: [] }), ["d"]);
    assert.deepEqual(
      refined?.report.ranking?.map((p) => p.name),
      ["d", "b", "c", "a"],
    );
    assert.ok(refined?.sample.summary.pods.every((p) => p.memory?.workingSetBytes !== undefined));
  });

  test("a complete read's decision is read again only when one of its kills went out", async () => {
    const stats = new FakeStats();
    const { decision } = await decide(cleanupWake, stats);
    assert.ok(decision.result.kind === "done");
    assert.equal(await decision.refine(decision.result.report, false), undefined);
    assert.deepEqual(stats.refreshed, []);
    const refined = await decision.refine(decision.result.report, true);
    assert.deepEqual(stats.refreshed, [["d"]]);
    assert.deepEqual(picked(refined?.report ?? { evictions: [] }), ["d"]);
  });

  test("a fresher read that picks another pod leaves the first decision standing", async () => {
    const stats = new FakeStats();
    const warnings: string[] = [];
    const { decision } = await decide(cleanupWake, stats, MEMORY, warnings);
    assert.ok(decision.result.kind === "done");
    stats.grown = "a";
    assert.equal(await decision.refine(decision.result.report, true), undefined);
    assert.deepEqual(stats.refreshed, [["d"]]);
    assert.deepEqual(warnings, [
      "Eviction manager: a fresher read picks other pods; the first decision stands",
    ]);
  });
});
