/**
 * Every examples/*.yaml replays with exit 0 and nothing on stderr (no warning) in both output
 * formats, and the evictions its comments promise happen: the victims below are derived by hand
 * from each example's comments and the kubelet rules (kubelet-semantics §4 ranking, §5 local
 * storage, §7 admission), not from output.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import {
  CLI_SKIP,
  EXAMPLES,
  REPO_ROOT,
  assertNoCrash,
  evictedPods,
  replayJsonl,
  runEvictd,
} from "./evictd-cli.js";

type Json = Record<string, unknown>;

interface Expectation {
  /** Pod keys evicted at each step time; every other step evicts nothing. */
  readonly evictions: Readonly<Record<string, readonly string[]>>;
  /** Extra checks of what the example's comments say. */
  readonly check?: (steps: readonly Json[]) => void;
}

const stepAt = (steps: readonly Json[], at: string): Json => {
  const s = steps.find((x) => x["at"] === at);
  assert.ok(s !== undefined, `no step at ${at}`);
  return s;
};
const admissions = (s: Json): [string, boolean][] =>
  (s["admission"] as Json[]).map((a) => [String(a["pod"]), a["admit"] === true]);
const evictionsAt = (steps: readonly Json[], at: string): Json[] => stepAt(steps, at)["evictions"] as Json[];
const allEvicted = (steps: readonly Json[]): string[] => steps.flatMap((s) => evictedPods(s));

const EXPECTED: Record<string, Expectation> = {
  "admission-under-pressure.yaml": {
    evictions: {}, // a pod-less node: nothing to evict
    check: (steps) => {
      assert.deepEqual(
        steps.map((s) => s["conditions"]),
        [["MemoryPressure"], ["MemoryPressure", "DiskPressure"], ["MemoryPressure", "DiskPressure"], []],
      );
      // MemoryPressure alone: only BestEffort without the toleration is rejected.
      assert.deepEqual(admissions(stepAt(steps, "0s")), [
        ["default/besteffort", false],
        ["default/tolerant", true],
        ["default/burstable", true],
      ]);
      // Memory and disk pressure: everyone but the critical pod is rejected.
      assert.deepEqual(admissions(stepAt(steps, "10s")), [
        ["default/burstable", false],
        ["kube-system/dns", true],
      ]);
      // Pressure gone, conditions kept for the 30s transition period.
      assert.deepEqual(admissions(stepAt(steps, "20s")), [["default/burstable", false]]);
      assert.deepEqual(admissions(stepAt(steps, "45s")), [["default/besteffort", true]]);
      const rejected = (stepAt(steps, "10s")["admission"] as Json[])[0];
      assert.equal(rejected?.["reason"], "Evicted");
      assert.equal(rejected?.["message"], "The node had condition: [MemoryPressure DiskPressure]. ");
    },
  },
  "disk-pressure-evicts.yaml": {
    // logger: 2Gi + 6Gi + 4Gi emptyDir = 12Gi against 1Gi requested; web 501Mi against 0; builder
    // 15Gi is under its 20Gi request. Both logger and web exceed; logger is further over.
    evictions: { "0s": ["default/logger"] },
    check: (steps) => {
      assert.deepEqual(stepAt(steps, "0s")["reclaim"], { ran: ["containers", "images"], sufficient: false });
      assert.deepEqual(stepAt(steps, "10s")["thresholdsMet"], []); // 21.5Gi >= 10Gi + 5Gi
      assert.deepEqual(stepAt(steps, "10s")["conditions"], ["DiskPressure"]);
    },
  },
  "disk-pressure-image-gc.yaml": {
    evictions: {}, // reclaim is enough
    check: (steps) => {
      const reclaim = stepAt(steps, "0s")["reclaim"] as Json;
      assert.deepEqual([reclaim["ran"], reclaim["sufficient"]], [["containers", "images"], true]);
      assert.deepEqual(admissions(stepAt(steps, "0s")), [["default/new", false]]);
      assert.deepEqual(stepAt(steps, "10s")["thresholdsMet"], []);
      assert.deepEqual(stepAt(steps, "10s")["conditions"], ["DiskPressure"]);
    },
  },
  "hard-memory-pressure.yaml": {
    // web: 1946Mi over a 256Mi request, batch: 300Mi over 0, etcd 200Mi over 100Mi (critical), db
    // under its request. All three exceed; priority 0 for web and batch; web is further over.
    evictions: { "10s": ["default/web"] },
    check: (steps) => {
      assert.equal(evictionsAt(steps, "10s")[0]?.["gracePeriodSeconds"], 1);
      assert.deepEqual(stepAt(steps, "20s")["conditions"], ["MemoryPressure"]);
      assert.deepEqual(admissions(stepAt(steps, "20s")), [
        ["default/cron", false],
        ["default/api", true],
      ]);
      assert.deepEqual(stepAt(steps, "5m10s")["conditions"], []);
      assert.deepEqual(admissions(stepAt(steps, "5m10s")), [["default/cron", true]]);
    },
  },
  "inode-pressure.yaml": {
    // Inodes: thumbnails 300021 - 0 request; indexer 600001 - 2Gi (bytes!) sinks to the bottom.
    evictions: { "0s": ["media/thumbnails"] },
    check: (steps) => {
      const e = evictionsAt(steps, "0s")[0];
      assert.equal(e?.["signal"], "nodefs.inodesFree");
      // 5% of 1M inodes as a BinarySI quantity (50000); the available count as DecimalSI (45k).
      assert.equal(
        e?.["message"],
        "The node was low on resource: inodes. Threshold quantity: 50000, available: 45k. ",
      );
    },
  },
  "local-storage-limits.yaml": {
    // cache: 1.5Gi in a 1Gi emptyDir; etl: 3.5Gi over 2Gi+1Gi; logger: 700Mi of logs + 100Mi over 500Mi.
    evictions: { "10s": ["default/cache", "default/etl", "default/logger"] },
    check: (steps) => {
      const refused = (stepAt(steps, "10s")["refused"] as Json[]).map((r) => [r["pod"], r["reason"]]);
      assert.deepEqual(refused, [["monitoring/node-exporter", "critical"]]);
      const messages = evictionsAt(steps, "10s").map((e) => e["message"]);
      assert.deepEqual(messages, [
        'Usage of EmptyDir volume "cache" exceeds the limit "1Gi". ',
        "Pod ephemeral local storage usage exceeds the total limit of containers 3Gi. ",
        'Container app exceeded its local ephemeral storage limit "500Mi". ',
      ]);
      for (const e of evictionsAt(steps, "10s")) {
        assert.equal(e["kind"], "localStorage");
        assert.equal(e["gracePeriodSeconds"], 1);
        assert.deepEqual(e["annotations"], {});
        assert.ok(
          !("condition" in e),
          `local-storage evictions set no DisruptionTarget condition: ${JSON.stringify(e)}`,
        );
      }
      assert.deepEqual(stepAt(steps, "10s")["conditions"], []); // no pressure at all
    },
  },
  "pid-pressure.yaml": {
    // Priority first: crawler (0) before forker (100) despite 300 vs 25000 processes.
    evictions: { "0s": ["default/crawler"], "10s": ["default/forker"] },
    check: (steps) => {
      assert.deepEqual(stepAt(steps, "0s")["conditions"], ["PIDPressure"]);
      assert.deepEqual(admissions(stepAt(steps, "0s")), [
        ["default/api", false],
        ["kube-system/node-agent", true],
      ]);
    },
  },
  "real-node.yaml": {
    // The only active pod without stats goes first under memory pressure.
    evictions: { "0s": ["scraper/e2e-container-creating"] },
    check: (steps) => {
      const ranking = stepAt(steps, "0s")["ranking"] as string[];
      for (const failed of [
        "scraper/e2e-failjob-64h4g",
        "scraper/e2e-failjob-4kj9v",
        "scraper/e2e-failjob-28dqq",
        "scraper/e2e-failjob-p2w8g",
      ]) {
        assert.ok(!ranking.includes(failed), `${failed} is Failed: not active, never ranked`);
      }
      assert.ok(!ranking.includes("scraper/e2e-cronjob-29707813-dhlr2"), "Succeeded pods are not active");
      assert.equal(ranking[0], "scraper/e2e-container-creating");
      assert.deepEqual(admissions(stepAt(steps, "0s")), [["default/newcomer", false]]);
    },
  },
  "soft-memory-pressure.yaml": {
    // Soft grace 1m30s restarted at 1m: acted on at 2m30s; cache is 1.5Gi over its request.
    evictions: { "2m30s": ["default/cache"] },
    check: (steps) => {
      for (const s of steps) assert.deepEqual(s["conditions"], ["MemoryPressure"], `at ${String(s["at"])}`);
      assert.deepEqual(stepAt(steps, "50s")["thresholdsMet"], []);
      const e = evictionsAt(steps, "2m30s")[0];
      // min(evictionMaxPodGracePeriod 60, terminationGracePeriodSeconds 120)
      assert.equal(e?.["gracePeriodSeconds"], 60);
      assert.equal(e?.["effectiveGracePeriodSeconds"], 60);
    },
  },
};

const EXAMPLE_FILES = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

describe("examples/*.yaml", { skip: CLI_SKIP }, () => {
  test("every example has expectations here", () => {
    assert.ok(EXAMPLE_FILES.length > 0, "no examples found");
    assert.deepEqual(EXAMPLE_FILES, Object.keys(EXPECTED).sort());
  });

  for (const name of EXAMPLE_FILES) {
    const file = relative(REPO_ROOT, join(EXAMPLES, name));
    const expected = EXPECTED[name];

    test(`${name}: jsonl replay, exit 0, no warning, the promised evictions`, () => {
      const { steps, stderr } = replayJsonl(file);
      // A shipped example runs clean: a newcomer's first run shows no warning to puzzle over.
      assert.deepEqual(stderr, [], `${name} prints on stderr`);
      assert.ok(steps.length > 0);
      const want = expected?.evictions ?? {};
      for (const at of Object.keys(want))
        assert.ok(
          steps.some((s) => s["at"] === at),
          `${name} has no step at ${at}`,
        );
      for (const s of steps) {
        const at = String(s["at"]);
        assert.deepEqual(evictedPods(s), want[at] ?? [], `${name} at ${at}`);
      }
      // Critical pods (static, mirror, system priorities) are never evicted.
      for (const pod of allEvicted(steps)) {
        assert.ok(
          !/^kube-system\/(etcd|kube-proxy|dns|node-agent)$|^monitoring\/node-exporter$/.test(pod),
          `${name}: critical ${pod} evicted`,
        );
      }
      expected?.check?.(steps);
    });

    test(`${name}: table replay, exit 0, one EVICTED line per eviction`, () => {
      const r = runEvictd(["replay", file, "--output", "table"]);
      assert.equal(r.status, 0, r.stderr);
      assertNoCrash(r);
      assert.equal(r.stderr, "", `${name} prints on stderr`);
      const lines = r.stdout.split("\n").filter((l) => /\bEVICTED\b/.test(l));
      const want = Object.values(expected?.evictions ?? {}).flat();
      assert.equal(lines.length, want.length, lines.join("\n"));
      want.forEach((pod, i) =>
        assert.ok(lines[i]?.includes(pod), `EVICTED line ${i} should name ${pod}: ${lines[i]}`),
      );
    });
  }
});
