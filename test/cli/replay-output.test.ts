/**
 * The replay output contract (docs/replay-format.md "Output"): a config record, then exactly one
 * step record per step with every documented field, checked against values derived by hand from
 * test/fixtures/replay/output-contract.yaml; and the table view for people.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { before, describe, test } from "node:test";
import {
  CLI_SKIP,
  FIXTURES,
  REPO_ROOT,
  assertNoCrash,
  parseJsonl,
  replayJsonl,
  runEvictd,
} from "./evictd-cli.js";

type Json = Record<string, unknown>;

const SCENARIO = relative(REPO_ROOT, join(FIXTURES, "replay", "output-contract.yaml"));

/** The documented step fields; more may be added, none may be missing. */
const STEP_FIELDS = [
  "type",
  "at",
  "observations",
  "thresholdsMet",
  "conditions",
  "actedOn",
  "reclaim",
  "evictions",
  "refused",
  "admission",
];
const CONFIG_FIELDS = [
  "type",
  "thresholds",
  "evictionMaxPodGracePeriod",
  "evictionPressureTransitionPeriod",
  "filesystems",
  "localStorageCapacityIsolation",
  "pods",
];
const EVICTION_FIELDS = [
  "pod",
  "uid",
  "kind",
  "signal",
  "gracePeriodSeconds",
  "effectiveGracePeriodSeconds",
  "killFailed",
  "message",
  "annotations",
];

/** Keeps only the named keys (extra fields are allowed by the contract, so they are not compared). */
function pick(record: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const k of keys) if (k in record) out[k] = record[k];
  return out;
}

function assertHasFields(record: Json, keys: readonly string[], what: string): void {
  for (const k of keys)
    assert.ok(k in record, `${what} lacks the documented field ${k}: ${JSON.stringify(record)}`);
}

// ---- hand-derived expectations (see the fixture's comments) --------------------------------

const T0 = "2025-01-01T00:00:";
const obs = (memAvail: string, fsAvail: string, time: string): Json => ({
  "memory.available": { available: memAvail, capacity: "8Gi", time },
  "nodefs.available": { available: fsAvail, capacity: "100Gi", time },
});
const HARD_MEM = { signal: "memory.available", value: "500Mi", gracePeriod: "0s" };
const SOFT_MEM = { signal: "memory.available", value: "1Gi", gracePeriod: "30s" };
const HARD_FS = { signal: "nodefs.available", value: "10Gi", gracePeriod: "0s" };
const LOW_MEMORY = "The node was low on resource: memory. Threshold quantity: 500Mi, available: 400Mi. ";
const HOG_MESSAGE = `${LOW_MEMORY}Container app was using 3Gi, request is 256Mi, has larger consumption of memory. `;
const HOG_ANNOTATIONS = {
  offending_containers: "app",
  offending_containers_usage: "3Gi",
  starved_resource: "memory",
};

function pressureEviction(pod: string, message: string, annotations: Json, killFailed: boolean): Json {
  return {
    pod,
    uid: pod, // no metadata.uid in the fixture: defaults to namespace/name
    kind: "pressure",
    signal: "memory.available",
    gracePeriodSeconds: 1, // hard threshold: immediateEvictionGracePeriodSeconds
    effectiveGracePeriodSeconds: 1,
    killFailed,
    message,
    annotations,
  };
}

const EXPECTED_STEPS: Json[] = [
  {
    at: "0s",
    observations: obs("4Gi", "50Gi", `${T0}00Z`),
    thresholdsMet: [],
    conditions: [],
    actedOn: null,
    reclaim: null,
    evictions: [],
    refused: [],
    admission: [{ pod: "default/probe", admit: true }],
  },
  {
    at: "10s",
    observations: obs("4Gi", "9Gi", `${T0}10Z`),
    thresholdsMet: [HARD_FS],
    conditions: ["DiskPressure"],
    actedOn: HARD_FS,
    // single filesystem: container GC then image GC; afterwards 12Gi >= 10Gi + 1Gi min reclaim.
    reclaim: { ran: ["containers", "images"], sufficient: true },
    evictions: [],
    refused: [],
    admission: [
      {
        pod: "default/web",
        admit: false,
        reason: "Evicted",
        message: "The node had condition: [DiskPressure]. ",
      },
    ],
  },
  {
    at: "20s",
    observations: obs("400Mi", "50Gi", `${T0}20Z`),
    thresholdsMet: [HARD_MEM, SOFT_MEM],
    conditions: ["MemoryPressure", "DiskPressure"],
    actedOn: HARD_MEM,
    reclaim: null, // memory has no node-level reclaim
    evictions: [pressureEviction("default/hog", HOG_MESSAGE, HOG_ANNOTATIONS, true)],
    refused: [],
    // hog and etcd exceed their requests (hog first: priority 0 < 2000001000); db does not.
    ranking: ["default/hog", "kube-system/etcd", "default/db"],
    admission: [],
  },
  {
    at: "30s",
    observations: obs("400Mi", "50Gi", `${T0}30Z`),
    thresholdsMet: [HARD_MEM, SOFT_MEM],
    conditions: ["MemoryPressure", "DiskPressure"],
    actedOn: HARD_MEM, // the soft threshold, first met at 20s, is 20s short of its grace period
    reclaim: null,
    evictions: [pressureEviction("default/hog", HOG_MESSAGE, HOG_ANNOTATIONS, false)],
    refused: [],
    ranking: ["default/hog", "kube-system/etcd", "default/db"],
    admission: [],
  },
  {
    at: "35s",
    observations: obs("400Mi", "50Gi", `${T0}35Z`),
    thresholdsMet: [HARD_MEM, SOFT_MEM],
    conditions: ["MemoryPressure", "DiskPressure"],
    actedOn: HARD_MEM,
    reclaim: null,
    evictions: [
      pressureEviction(
        "default/db",
        LOW_MEMORY,
        { offending_containers: "", offending_containers_usage: "", starved_resource: "memory" },
        false,
      ),
    ],
    refused: [{ pod: "kube-system/etcd", reason: "critical" }],
    ranking: ["kube-system/etcd", "default/db"],
    admission: [],
  },
  {
    at: "40s",
    observations: obs("2Gi", "50Gi", `${T0}40Z`),
    thresholdsMet: [],
    conditions: ["MemoryPressure", "DiskPressure"], // 1m transition period
    actedOn: null,
    reclaim: null,
    evictions: [],
    refused: [],
    admission: [
      {
        pod: "default/probe",
        admit: false,
        reason: "Evicted",
        message: "The node had condition: [MemoryPressure DiskPressure]. ",
      },
      { pod: "kube-system/agent", admit: true },
    ],
  },
  {
    at: "1m20s",
    observations: obs("2Gi", "50Gi", `${T0}40Z`), // no summary: the 40s sample, time stamps included
    thresholdsMet: [],
    conditions: ["MemoryPressure"], // DiskPressure last seen at 10s (70s ago), MemoryPressure at 35s (45s ago)
    actedOn: null,
    reclaim: null,
    evictions: [],
    refused: [],
    admission: [],
  },
  {
    at: "2m0s",
    observations: obs("2Gi", "50Gi", `${T0}40Z`),
    thresholdsMet: [],
    conditions: [],
    actedOn: null,
    reclaim: null,
    evictions: [],
    refused: [],
    admission: [{ pod: "default/probe", admit: true }],
  },
];

describe("evictd replay --output jsonl: the record contract", { skip: CLI_SKIP }, () => {
  let config: Json = {};
  let steps: Json[] = [];
  before(() => {
    ({ config, steps } = replayJsonl(SCENARIO));
  });

  test("the first line is the config record with every documented field", () => {
    assertHasFields(config, CONFIG_FIELDS, "config record");
    assert.equal(config["type"], "config");
    assert.equal(config["evictionMaxPodGracePeriod"], 20);
    assert.equal(config["evictionPressureTransitionPeriod"], "1m0s");
    assert.equal(config["filesystems"], "single");
    assert.equal(config["localStorageCapacityIsolation"], true);
  });

  test("config thresholds: hard, soft, min reclaim, and the derived allocatable and containerfs copies", () => {
    const thresholds = config["thresholds"] as Json[];
    const key = (t: Json): string =>
      JSON.stringify(
        pick(t, ["signal", "operator", "value", "gracePeriod", "minReclaim", "hard", "derivedFrom"]),
      );
    const want: Json[] = [
      {
        signal: "memory.available",
        operator: "LessThan",
        value: "500Mi",
        gracePeriod: "0s",
        minReclaim: "0",
        hard: true,
      },
      {
        signal: "nodefs.available",
        operator: "LessThan",
        value: "10Gi",
        gracePeriod: "0s",
        minReclaim: "1Gi",
        hard: true,
      },
      {
        signal: "memory.available",
        operator: "LessThan",
        value: "1Gi",
        gracePeriod: "30s",
        minReclaim: "0",
        hard: false,
      },
      // enforceNodeAllocatable defaults to [pods]: every hard memory.available threshold is copied.
      {
        signal: "allocatableMemory.available",
        operator: "LessThan",
        value: "500Mi",
        gracePeriod: "0s",
        minReclaim: "0",
        hard: true,
        derivedFrom: "memory.available",
      },
      // single filesystem: containerfs mirrors nodefs (the empty soft/inode mirrors are inert).
      {
        signal: "containerfs.available",
        operator: "LessThan",
        value: "10Gi",
        gracePeriod: "0s",
        minReclaim: "1Gi",
        hard: true,
        derivedFrom: "nodefs.available",
      },
    ];
    for (const t of thresholds)
      assertHasFields(t, ["signal", "operator", "value", "gracePeriod", "minReclaim", "hard"], "threshold");
    assert.deepEqual(thresholds.map(key).sort(), want.map(key).sort());
  });

  test("config pods: every pod of the scenario (added ones too) with QoS, criticality and oom_score_adj", () => {
    const pods = (config["pods"] as Json[]).map((p) =>
      pick(p, ["pod", "qosClass", "critical", "oomScoreAdj"]),
    );
    const byKey = new Map(pods.map((p) => [p["pod"], p]));
    assert.equal(pods.length, 4);
    // Node-critical static pod: -997. Burstable 256Mi of 8Gi: 1000 - 1000*256Mi/8Gi = 1000 - 31 = 969.
    assert.deepEqual(byKey.get("kube-system/etcd"), {
      pod: "kube-system/etcd",
      qosClass: "Burstable",
      critical: true,
      oomScoreAdj: { etcd: -997 },
    });
    assert.deepEqual(byKey.get("default/hog"), {
      pod: "default/hog",
      qosClass: "Burstable",
      critical: false,
      oomScoreAdj: { app: 969 },
    });
    assert.deepEqual(byKey.get("default/db"), {
      pod: "default/db",
      qosClass: "Guaranteed",
      critical: false,
      oomScoreAdj: { pg: -997 },
    });
    assert.deepEqual(byKey.get("default/late"), {
      pod: "default/late",
      qosClass: "BestEffort",
      critical: false,
      oomScoreAdj: { c: 1000 },
    });
  });

  test("exactly one step record per step, in order, each with every documented field", () => {
    assert.deepEqual(
      steps.map((s) => s["at"]),
      EXPECTED_STEPS.map((s) => s["at"]),
    );
    for (const s of steps) {
      assertHasFields(s, STEP_FIELDS, `step ${String(s["at"])}`);
      assert.equal(s["type"], "step");
      for (const e of s["evictions"] as Json[]) assertHasFields(e, EVICTION_FIELDS, "eviction");
    }
  });

  EXPECTED_STEPS.forEach((want, i) => {
    test(`step ${String(want["at"])}: every field as derived by hand`, () => {
      const got = steps[i];
      assert.ok(got !== undefined, `no step record ${i}`);
      const evictions = (got["evictions"] as Json[]).map((e) => pick(e, EVICTION_FIELDS));
      const refused = (got["refused"] as Json[]).map((r) => pick(r, ["pod", "reason"]));
      const reclaim = got["reclaim"] === null ? null : pick(got["reclaim"] as Json, ["ran", "sufficient"]);
      assert.deepEqual(
        {
          ...pick(got, ["at", "observations", "thresholdsMet", "conditions", "actedOn", "admission"]),
          reclaim,
          evictions,
          refused,
        },
        {
          ...pick(want, ["at", "observations", "thresholdsMet", "conditions", "actedOn", "admission"]),
          reclaim: want["reclaim"],
          evictions: want["evictions"],
          refused: want["refused"],
        },
      );
      // ranking only when ranking happened
      if ("ranking" in want) assert.deepEqual(got["ranking"], want["ranking"]);
      else
        assert.ok(
          !("ranking" in got),
          `no ranking happened at ${String(want["at"])}, yet: ${JSON.stringify(got["ranking"])}`,
        );
    });
  });

  test("pressure evictions carry the DisruptionTarget condition with the eviction message", () => {
    const evictions = steps.flatMap((s) => s["evictions"] as Json[]);
    assert.equal(evictions.length, 3);
    for (const e of evictions) {
      const condition = e["condition"] as Json | undefined;
      assert.ok(condition !== undefined, `pressure eviction without condition: ${JSON.stringify(e)}`);
      assert.deepEqual(pick(condition, ["type", "status", "reason"]), {
        type: "DisruptionTarget",
        status: "True",
        reason: "TerminationByKubelet",
      });
      if ("message" in condition) assert.equal(condition["message"], e["message"]);
    }
  });
});

describe("evictd replay: config record without node capacity", { skip: CLI_SKIP }, () => {
  test("oomScoreAdj is present only when node.status.capacity.memory is given", () => {
    const { config } = replayJsonl(
      relative(REPO_ROOT, join(REPO_ROOT, "examples", "disk-pressure-evicts.yaml")),
    );
    const pods = config["pods"] as Json[];
    assert.deepEqual(
      pods.map((p) => p["pod"]),
      ["default/logger", "default/builder", "default/web"],
    );
    for (const p of pods) {
      assertHasFields(p, ["pod", "qosClass", "critical"], "config pod");
      assert.ok(!("oomScoreAdj" in p), `no node capacity, yet: ${JSON.stringify(p)}`);
    }
  });
});

describe("evictd replay: output format selection", { skip: CLI_SKIP }, () => {
  test("without --output, and stdout not a terminal, the output is jsonl", () => {
    const r = runEvictd(["replay", SCENARIO]);
    assert.equal(r.status, 0, r.stderr);
    const records = parseJsonl(r.stdout);
    assert.equal(records.length, 1 + EXPECTED_STEPS.length);
  });

  test("-o is --output", () => {
    const long = runEvictd(["replay", SCENARIO, "--output", "jsonl"]);
    const short = runEvictd(["replay", SCENARIO, "-o", "jsonl"]);
    assert.equal(short.status, 0, short.stderr);
    assert.equal(short.stdout, long.stdout);
  });

  test("jsonl stdout holds nothing but the records (warnings go to stderr)", () => {
    const r = runEvictd(["replay", SCENARIO, "--output", "jsonl"]);
    // The fixture lists only two evictionHard signals without mergeDefaultEvictionSettings: a warning.
    assert.match(r.stderr, /warning: /);
    assert.doesNotMatch(r.stdout, /warning/);
    assert.equal(r.stdout.split("\n").filter((l) => l !== "").length, 1 + EXPECTED_STEPS.length);
  });
});

describe("evictd replay --output table", { skip: CLI_SKIP }, () => {
  let out = "";
  before(() => {
    const r = runEvictd(["replay", SCENARIO, "--output", "table"]);
    assert.equal(r.status, 0, r.stderr);
    assertNoCrash(r);
    out = r.stdout;
  });

  test("is not jsonl", () => {
    assert.ok(!out.trimStart().startsWith("{"), out.slice(0, 200));
  });

  test("shows every step time", () => {
    for (const s of EXPECTED_STEPS)
      assert.match(out, new RegExp(`\\b${String(s["at"])}\\b`), `step ${String(s["at"])} missing`);
  });

  test("shows the signals with their observed values", () => {
    assert.match(out, /memory\.available\s+400Mi\s+8Gi/);
    assert.match(out, /nodefs\.available\s+9Gi\s+100Gi/);
  });

  test("shows the node conditions", () => {
    assert.match(out, /MemoryPressure/);
    assert.match(out, /DiskPressure/);
  });

  test("shows one EVICTED line per eviction, naming the pod", () => {
    const evicted = out.split("\n").filter((l) => /\bEVICTED\b/.test(l));
    assert.equal(evicted.length, 3, evicted.join("\n"));
    assert.match(evicted[0] ?? "", /default\/hog/);
    assert.match(evicted[1] ?? "", /default\/hog/);
    assert.match(evicted[2] ?? "", /default\/db/);
    assert.doesNotMatch(out, /EVICTED kube-system\/etcd/);
  });

  test("shows the eviction messages and the admission decisions", () => {
    assert.ok(out.includes(HOG_MESSAGE.trimEnd()), "the kubelet's eviction message is shown");
    assert.ok(
      out.includes("The node had condition: [MemoryPressure DiskPressure]."),
      "the admission rejection is shown",
    );
  });
});
