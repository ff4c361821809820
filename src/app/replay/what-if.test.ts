/**
 * The what-if replay's rules (docs/replay-format.md, "what-if replay"), each on a small node whose
 * adjusted figures are worked out here by hand: an evicted pod's usage leaves later samples from its
 * eviction plus its effective grace period, a pod arriving under a condition that refuses it never
 * runs, and a pod the recording lost while this configuration kept it is diverged, never invented.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadScenarioText } from "../../formats/scenario/load-scenario.js";
import type { ReplayStepRecord } from "./record-types.js";
import { stepRecord } from "./records.js";
import { planReplay, runReplay, type ReplayOptions, type StepOutcome } from "./run-replay.js";

const MI = 1024 * 1024;

interface PodSample {
  readonly name: string;
  readonly mi: number;
  readonly disk?: number;
  readonly inodes?: number;
  readonly procs?: number;
}

/**
 * One sample of a node of 1000Mi (900Mi allocatable) whose system uses 300Mi: the node's working set
 * is 300Mi plus the pods'; nodefs (imagefs the same filesystem) holds 1,000,000 bytes, 400,000 used
 * by the system plus the pods' ephemeral storage; 1000 inodes, 100 used plus the pods'; 4000 PIDs,
 * 500 used plus the pods' processes.
 */
function sample(pods: readonly PodSample[]): unknown {
  const podsMi = pods.reduce((a, p) => a + p.mi, 0);
  const disk = pods.reduce((a, p) => a + (p.disk ?? 0), 0);
  const inodes = pods.reduce((a, p) => a + (p.inodes ?? 0), 0);
  const fs = {
    availableBytes: 1_000_000 - 400_000 - disk,
    capacityBytes: 1_000_000,
    inodesFree: 1000 - 100 - inodes,
    inodes: 1000,
  };
  return {
    node: {
      memory: { availableBytes: (700 - podsMi) * MI, workingSetBytes: (300 + podsMi) * MI },
      systemContainers: [
        { name: "pods", memory: { availableBytes: (900 - podsMi) * MI, workingSetBytes: podsMi * MI } },
      ],
      fs,
      runtime: { imageFs: fs },
      rlimit: { maxpid: 4000, curproc: 500 + pods.reduce((a, p) => a + (p.procs ?? 0), 0) },
    },
    pods: pods.map((p) => ({
      podRef: { name: p.name, namespace: "default", uid: p.name },
      memory: { workingSetBytes: p.mi * MI },
      containers: [{ name: "c", memory: { workingSetBytes: p.mi * MI } }],
      "ephemeral-storage": { usedBytes: p.disk ?? 0, inodesUsed: p.inodes ?? 0 },
      process_stats: { process_count: p.procs ?? 0 },
    })),
  };
}

const besteffort = (name: string, grace = 30): unknown => ({
  metadata: { name, namespace: "default", uid: name },
  spec: { terminationGracePeriodSeconds: grace, containers: [{ name: "c" }] },
});
const burstable = (name: string, requestMi: number): unknown => ({
  metadata: { name, namespace: "default", uid: name },
  spec: { containers: [{ name: "c", resources: { requests: { memory: `${requestMi}Mi` } } }] },
});

async function replayOf(doc: Record<string, unknown>, options: ReplayOptions): Promise<ReplayStepRecord[]> {
  const loaded = await loadScenarioText(JSON.stringify(doc), "what-if.json", process.cwd());
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.issues));
  const out: StepOutcome[] = [];
  runReplay(loaded.scenario, planReplay(loaded.scenario), (o) => out.push(o), options);
  return out.map(stepRecord);
}

const evicted = (records: readonly ReplayStepRecord[]): string[][] =>
  records.map((r) => r.evictions.map((e) => e.pod));

/** A hard 100Mi memory threshold and nothing else. */
const HARD_100MI = { evictionHard: { "memory.available": "100Mi" }, mergeDefaultEvictionSettings: false };

describe("what-if replay", () => {
  // a (BestEffort) leaks; b asks 500Mi and uses 200Mi. At 10s 80Mi are left: a goes (hard: 1 s of
  // grace). At 20s the recording, where nothing acted (evictedPods: keep), still holds a at 480Mi.
  const leak = {
    start: "2025-01-01T00:00:00Z",
    config: HARD_100MI,
    evictedPods: "keep",
    pods: [besteffort("a"), burstable("b", 500)],
    steps: [
      {
        at: "0s",
        summary: sample([
          { name: "a", mi: 300 },
          { name: "b", mi: 200 },
        ]),
      },
      {
        at: "10s",
        summary: sample([
          { name: "a", mi: 420, disk: 1200, inodes: 40, procs: 70 },
          { name: "b", mi: 200 },
        ]),
      },
      {
        at: "20s",
        summary: sample([
          { name: "a", mi: 480, disk: 1300, inodes: 41, procs: 71 },
          { name: "b", mi: 210 },
        ]),
      },
    ],
  };

  test("an evicted pod's usage leaves the later samples: memory, allocatable, nodefs and imagefs, inodes, PIDs", async () => {
    const open = await replayOf(leak, {});
    const whatIf = await replayOf(leak, { whatIf: true });
    assert.deepEqual(
      evicted(open),
      [[], ["default/a"], ["default/a"]],
      "open loop: a is evicted again and again",
    );
    assert.deepEqual(evicted(whatIf), [[], ["default/a"], []], "what-if: once, and the node is fine after");
    const at10 = whatIf[1];
    const at20 = whatIf[2];
    assert.ok(at10 !== undefined && at20 !== undefined);
    // At 10s nothing has left yet: the figures are the recorded ones.
    assert.equal(at10.observations["memory.available"]?.available, "80Mi");
    assert.deepEqual(at10.whatIf, { left: [], diverged: [], refusedOnArrival: [] });
    // At 20s a's 480Mi, 1300 bytes, 41 inodes and 71 processes are back:
    //   memory.available 1000 - (300 + 480 + 210) = 10Mi recorded, + 480 = 490Mi;
    //   allocatable 900 - 690 = 210Mi, + 480 = 690Mi;
    //   nodefs 600,000 - 1,300 = 598,700, + 1,300 = 600,000 (imagefs, the same filesystem, too);
    //   inodes 900 - 41 = 859, + 41 = 900; PIDs 4000 - 571 = 3429, + 71 = 3500.
    assert.equal(open[2]?.observations["memory.available"]?.available, "10Mi");
    const o = at20.observations;
    assert.equal(o["memory.available"]?.available, "490Mi");
    assert.equal(o["memory.available"]?.capacity, "1000Mi");
    assert.equal(o["allocatableMemory.available"]?.available, "690Mi");
    assert.equal(o["nodefs.available"]?.available, "600000");
    assert.equal(o["imagefs.available"]?.available, "600000");
    assert.equal(o["nodefs.inodesFree"]?.available, "900");
    assert.equal(o["pid.available"]?.available, "3500");
    assert.deepEqual(at20.whatIf, { left: ["default/a"], diverged: [], refusedOnArrival: [] });
    assert.deepEqual(at20.conditions, ["MemoryPressure"], "the condition stays for its transition period");
  });

  test("the usage leaves at the eviction plus the effective grace period, not before", async () => {
    // A soft 300Mi threshold with a 10 s grace period (beside the kubelet's default hard ones); the
    // pod worker gives a min(25, 30) = 25 s.
    // a alone, so that nothing else is ranked while it terminates.
    const soft = {
      ...leak,
      pods: [besteffort("a")],
      config: {
        evictionSoft: { "memory.available": "300Mi" },
        evictionSoftGracePeriod: { "memory.available": "10s" },
        evictionMaxPodGracePeriod: 25,
      },
      steps: [0, 10, 20, 30, 40].map((t) => ({
        at: `${t}s`,
        summary: sample([{ name: "a", mi: 550 + t }]),
      })),
    };
    const r = await replayOf(soft, { whatIf: true });
    assert.deepEqual(evicted(r), [[], ["default/a"], [], [], []]);
    assert.equal(r[1]?.evictions[0]?.effectiveGracePeriodSeconds, 25);
    // Evicted at 10s with 25 s: still there at 20s and 30s, gone from 35s on (110Mi recorded at
    // 40s, + a's 590Mi). The kubelet's default hard 100Mi is never met.
    assert.deepEqual(
      r.map((s) => s.observations["memory.available"]?.available),
      ["150Mi", "140Mi", "130Mi", "120Mi", "700Mi"],
    );
    assert.deepEqual(
      r.map((s) => s.whatIf?.left),
      [[], [], [], [], ["default/a"]],
    );
  });

  test("a pod the recording lost while this configuration kept it is diverged, and its usage is never invented", async () => {
    // Recorded under HARD_100MI with the kubelet acting: a is evicted at 10s and gone from 20s on.
    const recorded = {
      ...leak,
      evictedPods: "remove",
      steps: [
        leak.steps[0],
        leak.steps[1],
        { at: "20s", summary: sample([{ name: "b", mi: 210 }]) },
        { at: "30s", summary: sample([{ name: "b", mi: 215 }]) },
      ],
    };
    const same = await replayOf(recorded, { whatIf: true });
    assert.deepEqual(evicted(same), [[], ["default/a"], [], []]);
    assert.deepEqual(
      same.map((s) => s.whatIf?.diverged),
      [[], [], [], []],
      "the recording's own configuration loses nothing it kept",
    );
    // A looser threshold (50Mi) keeps a: the recording cannot say what a would have used.
    const looser = await replayOf(
      {
        ...recorded,
        config: { evictionHard: { "memory.available": "50Mi" }, mergeDefaultEvictionSettings: false },
      },
      { whatIf: true },
    );
    assert.deepEqual(evicted(looser), [[], [], [], []]);
    assert.deepEqual(
      looser.map((s) => s.whatIf?.diverged),
      [[], [], ["default/a"], ["default/a"]],
    );
    // The figures stay the recorded ones (a's usage is not made up): 1000 - 300 - 210 = 490Mi.
    assert.equal(looser[2]?.observations["memory.available"]?.available, "490Mi");
  });

  test("a pod arriving under a condition that refuses it never runs: its usage leaves from its arrival", async () => {
    // MemoryPressure from 10s (a evicted); c, BestEffort, arrives at 20s and runs in the recording.
    const arrival = {
      ...leak,
      steps: [
        leak.steps[0],
        leak.steps[1],
        {
          at: "20s",
          addPods: [besteffort("c")],
          summary: sample([
            { name: "a", mi: 440 },
            { name: "b", mi: 210 },
            { name: "c", mi: 50, procs: 3 },
          ]),
        },
      ],
    };
    const r = await replayOf(arrival, { whatIf: true });
    const at20 = r[2];
    assert.ok(at20 !== undefined);
    assert.deepEqual(
      at20.whatIf?.refusedOnArrival.map((x) => [x.pod, x.reason]),
      [["default/c", "Evicted"]],
    );
    assert.match(at20.whatIf?.refusedOnArrival[0]?.message ?? "", /MemoryPressure/);
    // Recorded: 1000 - (300 + 440 + 210 + 50) = 0Mi available; a (evicted at 10s) and c (refused)
    // are out: 0 + 440 + 50 = 490Mi.
    assert.equal(at20.observations["memory.available"]?.available, "490Mi");
    assert.deepEqual([...(at20.whatIf?.left ?? [])].sort(), ["default/a", "default/c"]);
    assert.deepEqual(evicted(r), [[], ["default/a"], []], "c was never active, so never ranked");
    // Open loop, c simply runs.
    const open = await replayOf(arrival, {});
    assert.equal(open[2]?.whatIf, undefined);
  });
});
