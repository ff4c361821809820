// The daemon loop around the engine: one pod per round, reclaim in flight counts, failed kills count.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import { IssueList } from "../../core/issues.js";
import type { EvictionConfig, NodeSummary, Pod } from "../../core/model.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { EvictionLoop, type EvictionLoopOptions, type LoopStep } from "./eviction-loop.js";
import {
  EvictionBlockedError,
  type ClockPort,
  type EvictionPreflight,
  type EvictionUrgency,
  type FailedPodStatus,
  type KillResult,
  type PodsPort,
  type StatsPort,
  type StatsScope,
  type Wake,
  type WakePort,
} from "../ports.js";

const Mi = 1024n * 1024n;

function config(): EvictionConfig {
  const r = buildEvictionConfig({
    config: {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      evictionHard: { "memory.available": "100Mi" },
    },
  });
  assert.ok(r.ok);
  return r.config;
}

class ManualClock implements ClockPort {
  t = 1_000_000;
  now(): number {
    return this.t;
  }
  sleep(ms: number): Promise<void> {
    this.t += ms;
    return Promise.resolve();
  }
}

/** Node memory follows the pods still alive: each pod holds 300Mi until it is cleaned up. */
class FakeNode implements StatsPort, PodsPort {
  alive: Pod[];
  dying = new Map<string, number>(); // uid → polls left before its memory is freed
  killed: { pod: string; grace: number; status: FailedPodStatus }[] = [];
  failKill = false;
  readonly clock: ManualClock;
  constructor(pods: Pod[], clock: ManualClock) {
    this.alive = [...pods];
    this.clock = clock;
  }
  collect(): Promise<{ raw: unknown; summary: NodeSummary }> {
    const used = BigInt(this.alive.length) * 300n * Mi;
    const capacity = 1024n * Mi;
    const time = this.clock.now();
    const summary: NodeSummary = {
      node: {
        systemContainers: [],
        memory: { time, availableBytes: capacity - used, workingSetBytes: used },
      },
      pods: this.alive.map((p, i) => ({
        podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
        memory: { workingSetBytes: 300n * Mi + BigInt(i) },
        containers: [],
        volumes: [],
      })),
    };
    return Promise.resolve({ raw: {}, summary });
  }
  activePods(): readonly Pod[] {
    return this.alive.filter((p) => !this.dying.has(p.uid));
  }
  kill(pod: Pod, grace: number, status: FailedPodStatus): Promise<KillResult> {
    if (this.failKill) return Promise.reject(new Error("kill failed"));
    this.killed.push({ pod: pod.key, grace, status });
    this.dying.set(pod.uid, 3);
    return Promise.resolve({
      terminatedAt: this.clock.now(),
      done: Promise.resolve({ ok: true, stuck: [] }),
    });
  }
  isCleanedUp(pod: Pod): Promise<boolean> {
    const left = this.dying.get(pod.uid);
    if (left === undefined) return Promise.resolve(true);
    if (left <= 1) {
      this.alive = this.alive.filter((p) => p.uid !== pod.uid);
      this.dying.delete(pod.uid);
      return Promise.resolve(true);
    }
    this.dying.set(pod.uid, left - 1);
    return Promise.resolve(false);
  }
  containerGC(): Promise<{ freedBytes: number }> {
    return Promise.resolve({ freedBytes: 0 });
  }
  imageGC(): Promise<{ freedBytes: number }> {
    return Promise.resolve({ freedBytes: 0 });
  }
}

const noWake: WakePort = {
  next: () => Promise.resolve({ reason: "timer", at: 0, notification: false }),
  rearm: () => undefined,
};
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function pods(): Pod[] {
  return decodePodList(
    ["a", "b", "c"].map((name) => ({ metadata: { name }, spec: { containers: [{ name: "c" }] } })),
    "pods",
    new IssueList(),
  );
}

/** Four pods a–d, each container requesting 1Mi. */
function requestingPods(): Pod[] {
  return decodePodList(
    ["a", "b", "c", "d"].map((name) => ({
      metadata: { name },
      spec: { containers: [{ name: "c", resources: { requests: { memory: "1Mi" } } }] },
    })),
    "pods",
    new IssueList(),
  );
}

/** A kernel memory notification, now. */
const memcgWake = (clock: ClockPort): Wake => ({ reason: "memcg", at: clock.now(), notification: true });
/** A housekeeping timer wake, now. */
const timerWake = (clock: ClockPort): Wake => ({ reason: "timer", at: clock.now(), notification: false });

/** A loop on `node` at a 10 s housekeeping interval; warnings are collected in `warnings`; `more` overrides. */
const loopOn = (
  node: FakeNode,
  clock: ManualClock,
  warnings: string[] = [],
  more: Partial<EvictionLoopOptions> = {},
) =>
  new EvictionLoop({
    config: config(),
    layout: "single",
    housekeepingIntervalMs: 10_000,
    stats: node,
    pods: node,
    wake: noWake,
    clock,
    log: { ...quiet, warn: (_f: object, msg: string) => void warnings.push(msg) },
    ...more,
  });

describe("EvictionLoop", () => {
  test("evicts one pod, waits for its memory to be freed, and then stops: never more pods than needed", async () => {
    const clock = new ManualClock();
    const node = new FakeNode(pods(), clock);
    node.alive.push(
      ...decodePodList(
        [{ metadata: { name: "d" }, spec: { containers: [{ name: "c" }] } }],
        "pods",
        new IssueList(),
      ),
    );
    // 4 pods × 300Mi > 1Gi: available is negative, far below 100Mi.
    const steps: LoopStep[] = [];
    const loop = loopOn(node, clock, [], { onStep: (s) => steps.push(s) });
    const wake: Wake = { reason: "memcg threshold crossed", at: clock.now(), notification: true };
    const first = await loop.runOnce(wake);
    assert.equal(first.evictions.length, 1);
    assert.equal(first.evictions[0]?.reactionMs, 0);
    // While the pod is dying its memory is still held; the loop waits instead of evicting again.
    assert.equal(await loop.waitForCleanup(first.evictions), true);
    const second = await loop.runOnce({
      reason: "after eviction cleanup",
      at: clock.now(),
      notification: false,
    });
    // 3 pods × 300Mi = 900Mi, available 124Mi ≥ 100Mi: no second eviction.
    assert.equal(second.evictions.length, 0);
    assert.deepEqual(
      node.killed.map((k) => k.pod),
      ["default/d"],
    );
    assert.equal(node.killed[0]?.grace, 1);
    assert.equal(node.killed[0]?.status.reason, "Evicted");
    assert.equal(node.killed[0]?.status.conditions[0]?.type, "DisruptionTarget");
  });

  test("a failed kill still counts as an eviction", async () => {
    const clock = new ManualClock();
    const node = new FakeNode(
      [
        ...pods(),
        ...pods().map((p) => ({ ...p, uid: `${p.uid}-2`, key: `${p.key}-2`, name: `${p.name}-2` })),
      ],
      clock,
    );
    node.failKill = true;
    const loop = loopOn(node, clock);
    const step = await loop.runOnce(timerWake(clock));
    assert.equal(step.report.evictions.length, 1);
    assert.equal(step.evictions[0]?.kill, undefined);
    assert.match(step.evictions[0]?.killError ?? "", /kill failed/);
  });

  test("when kills do nothing (dry run, shadow), the loop waits for its next wake instead of spinning", async () => {
    for (const resync of [true, false]) {
      const clock = new ManualClock();
      const node = new FakeNode(
        [
          ...pods(),
          ...decodePodList(
            [{ metadata: { name: "d" }, spec: { containers: [{ name: "c" }] } }],
            "pods",
            new IssueList(),
          ),
        ],
        clock,
      );
      // A kill that changes nothing: the pod stays alive and active.
      node.kill = (pod) => {
        node.killed.push({
          pod: pod.key,
          grace: 0,
          status: { phase: "Failed", reason: "Evicted", message: "", conditions: [] },
        });
        return Promise.resolve({ terminatedAt: clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) });
      };
      // Fresh stats at every look, as on a real node (stale stats would not be acted on again).
      const collect = node.collect.bind(node);
      node.collect = () => {
        clock.t += 5;
        return collect();
      };
      const controller = new AbortController();
      let wakes = 0;
      const countingWake: WakePort = {
        next: () => {
          wakes++;
          if (wakes > 3) controller.abort();
          return Promise.resolve(timerWake(clock));
        },
        rearm: () => undefined,
      };
      let syncs = 0;
      const loop = loopOn(node, clock, [], {
        resyncAfterEviction: resync,
        wake: countingWake,
        onStep: () => {
          syncs++;
          if (syncs > 50) controller.abort();
        },
      });
      await loop.run(controller.signal);
      if (resync)
        assert.ok(
          syncs > 50 && wakes === 1,
          `upstream behaviour: resync at once after each eviction (${syncs} syncs, ${wakes} wakes)`,
        );
      else assert.equal(syncs, wakes - 1, "one synchronize per wake");
    }
  });

  describe("a preflight that refuses an eviction (a PodDisruptionBudget)", () => {
    const fourPods = (): Pod[] => [
      ...pods(),
      ...decodePodList(
        [{ metadata: { name: "d" }, spec: { containers: [{ name: "c" }] } }],
        "pods",
        new IssueList(),
      ),
    ];
    /** A node whose preflight refuses the pods named in `protectedPods`, and records what it was asked. */
    class GuardedNode extends FakeNode {
      readonly asked: string[] = [];
      readonly urgencies: (EvictionUrgency | undefined)[] = [];
      readonly protectedPods: readonly string[];
      constructor(clock: ManualClock, protectedPods: readonly string[], onNode = fourPods()) {
        super(onNode, clock);
        this.protectedPods = protectedPods;
      }
      override kill(
        pod: Pod,
        grace: number,
        status: FailedPodStatus,
        _annotations?: Readonly<Record<string, string>>,
        urgency?: EvictionUrgency,
      ): Promise<KillResult> {
        this.urgencies.push(urgency);
        return super.kill(pod, grace, status);
      }
      preflight(pod: Pod): Promise<EvictionPreflight> {
        this.asked.push(pod.name);
        return Promise.resolve(
          this.protectedPods.includes(pod.name)
            ? { verdict: "refused", reason: `budget of ${pod.name}` }
            : { verdict: "allowed" },
        );
      }
    }
    const guarded = (clock: ManualClock, protectedPods: readonly string[], onNode?: Pod[]) => {
      const node = new GuardedNode(clock, protectedPods, onNode);
      return { node, asked: node.asked, urgencies: node.urgencies, pods: node };
    };

    test("the refused pod is left out and the next pod of the engine's ranking goes, for the same threshold", async () => {
      const clock = new ManualClock();
      const { node, asked, urgencies, pods: guardedPods } = guarded(clock, ["d"]);
      const loop = loopOn(node, clock, [], { pods: guardedPods });
      const step = await loop.runOnce(timerWake(clock));
      // d holds the most memory and ranks first; c is next.
      assert.deepEqual(asked, ["d", "c"]);
      assert.deepEqual(
        node.killed.map((k) => k.pod),
        ["default/c"],
      );
      assert.deepEqual(urgencies, ["hard"]);
      assert.deepEqual(
        step.refusedByPreflight?.map((r) => [r.eviction.pod.key, r.eviction.signal, r.reason]),
        [["default/d", "memory.available", "budget of d"]],
      );
      assert.deepEqual(
        step.report.evictions.map((e) => e.pod.key),
        ["default/c"],
      );
      assert.match(step.report.evictions[0]?.message ?? "", /^The node was low on resource: memory\./);
      assert.ok(!(step.report.ranking ?? []).some((p) => p.key === "default/d"), "decided without it");
      assert.equal(step.evictions[0]?.eviction.pod.key, "default/c");
    });

    test("every pod refused: nothing is evicted, and each pod was asked once", async () => {
      const clock = new ManualClock();
      const { node, asked, pods: guardedPods } = guarded(clock, ["a", "b", "c", "d"]);
      const loop = loopOn(node, clock, [], { pods: guardedPods });
      const step = await loop.runOnce(timerWake(clock));
      assert.deepEqual(asked, ["d", "c", "b", "a"]);
      assert.deepEqual(node.killed, []);
      assert.equal(step.evictions.length, 0);
      assert.equal(step.refusedByPreflight?.length, 4);
    });

    test("a kill refused by a budget (the port's EvictionBlockedError, no preflight): the next pod of the ranking is killed in the same step, no error logged", async () => {
      const clock = new ManualClock();
      /** A node without a preflight whose kill itself refuses the pods named in `protectedPods`. */
      class RefusingNode extends FakeNode {
        readonly tried: string[] = [];
        override kill(pod: Pod, grace: number, status: FailedPodStatus): Promise<KillResult> {
          this.tried.push(pod.name);
          if (pod.name === "d") return Promise.reject(new EvictionBlockedError(`budget of ${pod.name}`));
          return super.kill(pod, grace, status);
        }
      }
      const node = new RefusingNode(fourPods(), clock);
      const errors: string[] = [];
      const loop = loopOn(node, clock, [], {
        log: { info: () => undefined, warn: () => undefined, error: (_f, m) => errors.push(m) },
      });
      const step = await loop.runOnce(timerWake(clock));
      assert.deepEqual(node.tried, ["d", "c"]);
      assert.deepEqual(
        node.killed.map((k) => k.pod),
        ["default/c"],
      );
      assert.deepEqual(
        step.refusedByPreflight?.map((r) => [r.eviction.pod.key, r.reason]),
        [["default/d", "budget of d"]],
      );
      assert.deepEqual(
        step.evictions.map((e) => [e.eviction.pod.key, e.killError]),
        [["default/c", undefined]],
      );
      assert.ok(!(step.report.ranking ?? []).some((p) => p.key === "default/d"), "decided without it");
      assert.deepEqual(errors, []);
    });

    test("a soft threshold's eviction is killed as soft, a hard one's as hard", async () => {
      const soft = buildEvictionConfig({
        config: {
          apiVersion: "kubelet.config.k8s.io/v1beta1",
          kind: "KubeletConfiguration",
          evictionSoft: { "memory.available": "500Mi" },
          evictionSoftGracePeriod: { "memory.available": "1s" },
          evictionMaxPodGracePeriod: 20,
        },
      });
      assert.ok(soft.ok);
      // Three pods: 124Mi available, under the soft 500Mi and above the default hard 100Mi.
      const clock = new ManualClock();
      const { node, urgencies, pods: guardedPods } = guarded(clock, [], pods());
      const softLoop = loopOn(node, clock, [], { pods: guardedPods, config: soft.config });
      await softLoop.runOnce(timerWake(clock));
      clock.t += 2000;
      await softLoop.runOnce(timerWake(clock));
      assert.deepEqual(urgencies, ["soft"]);
      // Four pods: below the hard threshold as well, which decides.
      const hardClock = new ManualClock();
      const hard = guarded(hardClock, []);
      await loopOn(hard.node, hardClock, [], { pods: hard.pods, config: soft.config }).runOnce(
        timerWake(hardClock),
      );
      assert.deepEqual(hard.urgencies, ["hard"]);
    });
  });

  test("cleanup wait is bounded", async () => {
    const clock = new ManualClock();
    const node = new FakeNode(
      [
        ...pods(),
        ...decodePodList(
          [{ metadata: { name: "d" }, spec: { containers: [{ name: "c" }] } }],
          "pods",
          new IssueList(),
        ),
      ],
      clock,
    );
    const loop = loopOn(node, clock, [], { cleanupTimeoutMs: 100, cleanupPollMs: 50 });
    const step = await loop.runOnce(timerWake(clock));
    node.dying.set(step.evictions[0]?.eviction.pod.uid ?? "", 1000); // stuck
    const start = clock.now();
    assert.equal(await loop.waitForCleanup(step.evictions), false);
    assert.ok(clock.now() - start <= 150);
  });

  describe("housekeeping reads with carried-over pod figures", () => {
    /** `node` reads show the pods as they were (a largest); `all` reads show them now (d largest). */
    class StaleRankingNode extends FakeNode {
      scopes: string[] = [];
      override collect(scope: StatsScope = "all"): Promise<{ raw: unknown; summary: NodeSummary }> {
        this.scopes.push(scope);
        return super.collect().then(({ raw, summary }) => {
          const order = scope === "node" ? ["a", "b", "c", "d"] : ["d", "c", "b", "a"];
          return {
            raw,
            summary: {
              ...summary,
              pods: summary.pods.map((p) => ({
                ...p,
                memory: { workingSetBytes: 300n * Mi - BigInt(order.indexOf(p.podRef.name)) * Mi },
              })),
            },
          };
        });
      }
    }
    test("a decision that would evict is made again from fresh pod figures, and only that one acts", async () => {
      const clock = new ManualClock();
      const node = new StaleRankingNode(requestingPods(), clock); // 1200Mi of 1Gi: pressure
      const step = await loopOn(node, clock).runOnce(timerWake(clock));
      assert.deepEqual(node.scopes, ["node", "all"]);
      assert.deepEqual(
        node.killed.map((k) => k.pod),
        ["default/d"],
      );
      assert.equal(step.evictions.length, 1);
      assert.equal(step.report.evictions[0]?.pod.key, "default/d");
    });

    test("a decision that evicts nothing reads the pods no more", async () => {
      const clock = new ManualClock();
      const node = new StaleRankingNode(pods(), clock); // 900Mi of 1Gi: no pressure
      const step = await loopOn(node, clock).runOnce(timerWake(clock));
      assert.deepEqual(node.scopes, ["node"]);
      assert.equal(step.evictions.length, 0);
    });

    test("a memory wake reads everything it ranks by at once", async () => {
      const clock = new ManualClock();
      const node = new StaleRankingNode(requestingPods(), clock);
      await loopOn(node, clock).runOnce(memcgWake(clock));
      assert.deepEqual(node.scopes, ["memory"]);
      assert.deepEqual(
        node.killed.map((k) => k.pod),
        ["default/d"],
      );
    });
  });

  describe("memory wakes that read each pod's usage alone", () => {
    /** Usage and working set by pod: a's usage is mostly inactive file pages; d uses the most. */
    const FIGURES: Record<string, { usage: bigint; ws: bigint }> = {
      a: { usage: 600n * Mi, ws: 100n * Mi },
      b: { usage: 300n * Mi, ws: 290n * Mi },
      c: { usage: 300n * Mi, ws: 280n * Mi },
      d: { usage: 350n * Mi, ws: 350n * Mi },
    };
    /** `memory` reads report usage without working sets; `refreshPods` and `all` reads report both. */
    class UsageOnlyNode extends FakeNode {
      scopes: string[] = [];
      refreshed: string[][] = [];
      restated: string[] = [];
      /** A source that cannot read working sets: `refreshPods` changes nothing. */
      refreshFails = false;
      #pods(summary: NodeSummary, complete: (uid: string) => boolean): NodeSummary {
        return {
          ...summary,
          pods: summary.pods.map((p) => {
            const f = FIGURES[p.podRef.name] ?? { usage: 0n, ws: 0n };
            const memory = complete(p.podRef.uid)
              ? { time: this.clock.now(), usageBytes: f.usage, workingSetBytes: f.ws }
              : { time: this.clock.now(), usageBytes: f.usage };
            return { ...p, memory };
          }),
        };
      }
      override collect(scope: StatsScope = "all"): Promise<{ raw: unknown; summary: NodeSummary }> {
        this.scopes.push(scope);
        return super
          .collect()
          .then(({ raw, summary }) => ({ raw, summary: this.#pods(summary, () => scope !== "memory") }));
      }
      refreshPods(sample: { raw: unknown; summary: NodeSummary }, uids: readonly string[]) {
        this.refreshed.push([...uids].sort());
        if (this.refreshFails) return Promise.resolve(sample);
        const known = new Set(
          sample.summary.pods.filter((p) => p.memory?.workingSetBytes !== undefined).map((p) => p.podRef.uid),
        );
        return Promise.resolve({
          raw: {},
          summary: this.#pods(sample.summary, (uid) => known.has(uid) || uids.includes(uid)),
        });
      }
      restate(pod: Pod): void {
        this.restated.push(pod.key);
      }
    }
    const uid = (node: FakeNode, name: string) => node.alive.find((p) => p.name === name)?.uid ?? "";

    test("the pod a complete read would pick is found by reading the picked pods alone, then the rest after SIGTERM", async () => {
      const clock = new ManualClock();
      const node = new UsageOnlyNode(requestingPods(), clock); // 1200Mi of 1Gi: pressure
      const step = await loopOn(node, clock).runOnce(memcgWake(clock));
      // a has the largest usage, so it is read first; its working set is small, d's bound is next.
      assert.deepEqual(node.scopes, ["memory"]);
      assert.deepEqual(node.refreshed.slice(0, 2), [[uid(node, "a")], [uid(node, "d")]]);
      assert.deepEqual(
        node.killed.map((k) => k.pod),
        ["default/d"],
      );
      // After SIGTERM the picked pod and every pod not read in full are read, and the step reports a
      // decision from that complete read: the same pod, the real ranking.
      assert.deepEqual(node.refreshed[2], [uid(node, "b"), uid(node, "c"), uid(node, "d")].sort());
      assert.ok(step.sample?.summary.pods.every((p) => p.memory?.workingSetBytes !== undefined));
      assert.deepEqual(
        step.report.ranking?.map((p) => p.name),
        ["d", "b", "c", "a"],
      );
      assert.deepEqual(node.restated, ["default/d"]);
    });

    test("the same decision as a complete read's", async () => {
      const clock = new ManualClock();
      const complete = new UsageOnlyNode(requestingPods(), clock);
      const fromComplete = await loopOn(complete, clock).runOnce(timerWake(clock));
      const bounded = new UsageOnlyNode(requestingPods(), clock);
      const fromBounds = await loopOn(bounded, clock).runOnce(memcgWake(clock));
      assert.deepEqual(
        fromBounds.report.evictions.map((e) => [e.pod.key, e.message]),
        fromComplete.report.evictions.map((e) => [e.pod.key, e.message]),
      );
    });

    test("a rehearsal runs a memory wake's read and decision path and acts on nothing", async () => {
      const clock = new ManualClock();
      // Two pods, 600Mi of 1Gi: no threshold of the configuration is crossed.
      const node = new UsageOnlyNode(requestingPods().slice(0, 2), clock);
      const loop = loopOn(node, clock);
      const before = loop.engineState;
      await loop.rehearse();
      assert.deepEqual(node.scopes, ["memory"]);
      assert.ok(node.refreshed.length >= 1, "the rehearsal's picks were read in full");
      assert.deepEqual(node.killed, []);
      assert.deepEqual(node.restated, []);
      assert.equal(loop.engineState, before, "the engine's state is untouched");
      const step = await loop.runOnce(memcgWake(clock));
      assert.deepEqual(step.report.evictions, [], "no real threshold was crossed");
    });

    test("when working sets cannot be read, a complete read decides", async () => {
      const clock = new ManualClock();
      const node = new UsageOnlyNode(requestingPods(), clock);
      node.refreshFails = true;
      await loopOn(node, clock).runOnce(memcgWake(clock));
      assert.deepEqual(node.scopes, ["memory", "all"]);
      assert.deepEqual(
        node.killed.map((k) => k.pod),
        ["default/d"],
      );
    });
  });

  describe("carried-over container figures", () => {
    /** Memory reads leave containers out; `refreshPods` reads the named pods' containers (400Mi each). */
    class CarryingNode extends FakeNode {
      refreshed: string[][] = [];
      restated: { pod: string; status: FailedPodStatus }[] = [];
      /** What a refreshed read shows of a pod's first container, by pod name (default 400Mi). */
      containerBytes = (_pod: Pod): bigint => 400n * Mi;
      /** A different pick after the refresh: the refreshed read shows this pod as the largest. */
      growAfterRefresh: string | undefined;

      refreshPods(sample: { raw: unknown; summary: NodeSummary }, uids: readonly string[]) {
        this.refreshed.push([...uids]);
        const summary: NodeSummary = {
          ...sample.summary,
          pods: sample.summary.pods.map((p) => {
            const pod = this.alive.find((a) => a.uid === p.podRef.uid);
            const grown =
              this.growAfterRefresh === p.podRef.name ? { memory: { workingSetBytes: 900n * Mi } } : {};
            if (pod === undefined || !uids.includes(p.podRef.uid)) return { ...p, ...grown };
            return {
              ...p,
              ...grown,
              containers: [{ name: "c", memory: { workingSetBytes: this.containerBytes(pod) } }],
            };
          }),
        };
        return Promise.resolve({ raw: {}, summary });
      }
      restate(pod: Pod, status: FailedPodStatus): void {
        this.restated.push({ pod: pod.key, status });
      }
    }

    test("after SIGTERM, the picked pod's containers are read again and its status and record carry the fresh message", async () => {
      const clock = new ManualClock();
      const node = new CarryingNode(requestingPods(), clock);
      const step = await loopOn(node, clock).runOnce(memcgWake(clock));
      // The kill went out with the message of the carried-over read (no container figures) ...
      assert.equal(node.killed.length, 1);
      assert.doesNotMatch(node.killed[0]?.status.message ?? "", /Container c was using/);
      // ... then only the picked pod was read again, and its status was rewritten from that read.
      assert.deepEqual(node.refreshed, [[step.evictions[0]?.eviction.pod.uid]]);
      assert.equal(node.restated.length, 1);
      assert.equal(node.restated[0]?.pod, node.killed[0]?.pod);
      assert.match(node.restated[0]?.status.message ?? "", /Container c was using 400Mi, request is 1Mi/);
      // The step (decision log, /status) reports the refined decision.
      assert.equal(step.evictions[0]?.eviction.message, node.restated[0]?.status.message);
      assert.equal(step.report.evictions[0]?.message, node.restated[0]?.status.message);
      assert.equal(step.evictions[0]?.eviction.pod.key, node.killed[0]?.pod);
    });

    test("a housekeeping read may carry container figures too: its pick is read again the same way", async () => {
      const clock = new ManualClock();
      const node = new CarryingNode(requestingPods(), clock);
      const step = await loopOn(node, clock).runOnce(timerWake(clock));
      assert.equal(node.killed.length, 1);
      assert.deepEqual(node.refreshed, [[step.evictions[0]?.eviction.pod.uid]]);
      assert.match(node.restated[0]?.status.message ?? "", /Container c was using 400Mi, request is 1Mi/);
    });

    test("if the fresher read picks another pod, the first decision stands and is reported as such", async () => {
      const clock = new ManualClock();
      const node = new CarryingNode(requestingPods(), clock);
      node.growAfterRefresh = "a";
      const warnings: string[] = [];
      const step = await loopOn(node, clock, warnings).runOnce(memcgWake(clock));
      assert.equal(node.killed.length, 1);
      assert.notEqual(node.killed[0]?.pod, "default/a");
      assert.deepEqual(node.restated, []);
      assert.equal(step.evictions[0]?.eviction.pod.key, node.killed[0]?.pod);
      assert.ok(
        warnings.some((w) => /first decision stands/.test(w)),
        warnings.join("; "),
      );
    });
  });
});
