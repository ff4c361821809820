/**
 * `evictd replay` over the real Summary API responses and pod lists in test/fixtures/real-data, with
 * thresholds set just above each node's real figures so that pressure fires. The observations are
 * checked against the files' own numbers, and every victim against a small reference ranking
 * written here straight from kubelet-semantics §4 (an independent cross-check of src/core/rank):
 * critical pods are never evicted, terminated pods are never active.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  CLI_SKIP,
  DATA,
  evictedPods,
  exactInteger,
  parseJsonKeepingBigIntegers,
  quantityToInteger,
  replayJsonl,
  scratchDir,
} from "../cli/evictd-cli.js";
import { formatGoSeconds } from "../support/oracle/duration.js";
import { parseQuantity, quantityMilli } from "../support/oracle/quantity.js";
import { thresholdAmount } from "../support/oracle/threshold-value.js";

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

// ---------------------------------------------------------------------------------------------
// Quantities in pod specs, in milli-units (exact; `500m` bytes of ephemeral storage occur in pods-3),
// read by the tests' oracle (test/support/oracle), not by src/core.

/** A spec quantity as an exact number of milli-units, rounded up (upstream rounds sub-units up). */
function milli(text: string): bigint {
  assert.ok(parseQuantity(text) !== undefined, `not a quantity: ${text}`);
  return quantityMilli(text);
}

// ---------------------------------------------------------------------------------------------
// The reference model of a pod (kubelet-semantics §4.2, §7.3), read straight from v1 Pod JSON.

interface RefPod {
  readonly key: string;
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly priority: number;
  readonly critical: boolean;
  readonly terminated: boolean;
  /** milli-units */
  readonly memoryRequest: bigint;
  readonly ephemeralRequest: bigint;
  /** Names of volumes that count as local ephemeral storage (hostPath, gitRepo, configMap, disk emptyDir). */
  readonly localVolumes: ReadonlySet<string>;
}

const BUILTIN_PRIORITY: Record<string, number> = {
  "system-node-critical": 2000001000,
  "system-cluster-critical": 2000000000,
};
const POD_LEVEL_RESOURCE = (name: string): boolean =>
  name === "cpu" || name === "memory" || name.startsWith("hugepages-");

/** A container's request for a resource, after API defaulting (requests default to limits). */
function containerRequest(container: Json, resource: string): bigint {
  const res = obj(container["resources"]);
  const text = str(obj(res["requests"])[resource]) ?? str(obj(res["limits"])[resource]);
  return text === undefined ? 0n : milli(text);
}

/** §4.2: regular containers summed; sidecars accumulate; max with each init container's in-flight value; overhead if non-zero. */
function podRequest(spec: Json, resource: string): bigint {
  const podRes = obj(spec["resources"]);
  const podLevelSet = [...Object.keys(obj(podRes["requests"])), ...Object.keys(obj(podRes["limits"]))].some(
    POD_LEVEL_RESOURCE,
  );
  if (podLevelSet) {
    if (!POD_LEVEL_RESOURCE(resource)) return 0n; // container-level requests are skipped entirely
    const text = str(obj(podRes["requests"])[resource]) ?? str(obj(podRes["limits"])[resource]);
    return text === undefined ? 0n : milli(text);
  }
  let total = 0n;
  for (const c of list(spec["containers"])) total += containerRequest(obj(c), resource);
  let sidecars = 0n;
  let max = total;
  for (const ic of list(spec["initContainers"])) {
    const c = obj(ic);
    const r = containerRequest(c, resource);
    if (c["restartPolicy"] === "Always") {
      sidecars += r;
      total += r;
      if (total > max) max = total;
    } else if (r + sidecars > max) max = r + sidecars;
  }
  const overhead = str(obj(spec["overhead"])[resource]);
  return max !== 0n && overhead !== undefined ? max + milli(overhead) : max;
}

function refPod(raw: unknown): RefPod {
  const pod = obj(raw);
  const meta = obj(pod["metadata"]);
  const spec = obj(pod["spec"]);
  const annotations = obj(meta["annotations"]);
  const namespace = str(meta["namespace"]) ?? "default";
  const name = str(meta["name"]) ?? "";
  const priority =
    typeof spec["priority"] === "number"
      ? spec["priority"]
      : (BUILTIN_PRIORITY[str(spec["priorityClassName"]) ?? ""] ?? 0);
  const source = str(annotations["kubernetes.io/config.source"]);
  const staticPod = source !== undefined && source !== "api";
  const mirrorPod = "kubernetes.io/config.mirror" in annotations;
  const phase = str(obj(pod["status"])["phase"]);
  const localVolumes = new Set<string>();
  for (const v of list(spec["volumes"])) {
    const vol = obj(v);
    const emptyDir = vol["emptyDir"];
    const diskEmptyDir = isObj(emptyDir) && str(emptyDir["medium"]) !== "Memory";
    if (diskEmptyDir || "hostPath" in vol || "gitRepo" in vol || "configMap" in vol)
      localVolumes.add(str(vol["name"]) ?? "");
  }
  return {
    key: `${namespace}/${name}`,
    uid: str(meta["uid"]) ?? `${namespace}/${name}`,
    name,
    namespace,
    priority,
    critical: staticPod || mirrorPod || priority >= 2_000_000_000,
    terminated: phase === "Succeeded" || phase === "Failed",
    memoryRequest: podRequest(spec, "memory"),
    ephemeralRequest: podRequest(spec, "ephemeral-storage"),
    localVolumes,
  };
}

// ---------------------------------------------------------------------------------------------
// Reference ranking (§4.1, §4.3, §4.4): comparators chained; the first non-zero decides.

/** Per-pod usage the comparators read, or undefined for a pod without a stats entry. */
interface Usage {
  readonly memory: bigint; // milli
  readonly disk: bigint; // milli (bytes) or inodes × 1000
  readonly processes: bigint;
}

type Kind = "memory" | "disk-bytes" | "pid";
type Cmp = (a: RefPod, b: RefPod) => number;

/** pods[] entry for a pod: by podRef.uid, else by namespace and name (replay-format.md). */
function statsFor(pod: RefPod, summary: Json): Json | undefined {
  const pods = list(summary["pods"]).map(obj);
  return (
    pods.find((p) => str(obj(p["podRef"])["uid"]) === pod.uid) ??
    pods.find((p) => {
      const ref = obj(p["podRef"]);
      return (
        str(ref["uid"]) === undefined &&
        ref["name"] === pod.name &&
        (str(ref["namespace"]) ?? "default") === pod.namespace
      );
    })
  );
}

function usageOf(pod: RefPod, stats: Json | undefined): Usage | undefined {
  if (stats === undefined) return undefined;
  const n = (v: unknown): bigint => (v === undefined || v === null ? 0n : exactInteger(v));
  let disk = 0n;
  // single filesystem, *.available: images (nothing measured), root, logs, local volumes.
  for (const c of list(stats["containers"]).map(obj))
    disk += n(obj(c["rootfs"])["usedBytes"]) + n(obj(c["logs"])["usedBytes"]);
  for (const v of list(stats["volume"]).map(obj))
    if (pod.localVolumes.has(str(v["name"]) ?? "")) disk += n(v["usedBytes"]);
  return {
    memory: n(obj(stats["memory"])["workingSetBytes"]) * 1000n,
    disk: disk * 1000n,
    processes: n(obj(stats["process_stats"])["process_count"]),
  };
}

const cmpBig = (a: bigint, b: bigint): number => (a > b ? -1 : a < b ? 1 : 0); // larger first
const cmpBool = (a: boolean, b: boolean): number => (a === b ? 0 : a ? -1 : 1); // true first

function referenceComparator(kind: Kind, usage: ReadonlyMap<string, Usage | undefined>): Cmp {
  /** A usage comparator: a pod without stats comes first; two without stats tie. */
  const withStats =
    (f: (a: RefPod, ua: Usage, b: RefPod, ub: Usage) => number): Cmp =>
    (a, b) => {
      const ua = usage.get(a.key);
      const ub = usage.get(b.key);
      if (ua === undefined || ub === undefined)
        return ua === undefined && ub === undefined ? 0 : ua === undefined ? -1 : 1;
      return f(a, ua, b, ub);
    };
  const priority: Cmp = (a, b) => (a.priority === b.priority ? 0 : a.priority < b.priority ? -1 : 1);
  let chain: Cmp[];
  if (kind === "memory") {
    chain = [
      withStats((a, ua, b, ub) => cmpBool(ua.memory > a.memoryRequest, ub.memory > b.memoryRequest)),
      priority,
      withStats((a, ua, b, ub) => cmpBig(ua.memory - a.memoryRequest, ub.memory - b.memoryRequest)),
    ];
  } else if (kind === "disk-bytes") {
    chain = [
      withStats((a, ua, b, ub) => cmpBool(ua.disk > a.ephemeralRequest, ub.disk > b.ephemeralRequest)),
      priority,
      withStats((a, ua, b, ub) => cmpBig(ua.disk - a.ephemeralRequest, ub.disk - b.ephemeralRequest)),
    ];
  } else {
    chain = [priority, withStats((_a, ua, _b, ub) => cmpBig(ua.processes, ub.processes))];
  }
  return (a, b) => {
    for (const c of chain) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

// ---------------------------------------------------------------------------------------------
// Expected observations (§2.2), straight from a summary's numbers.

interface Observation {
  readonly available: bigint;
  readonly capacity: bigint;
  readonly time: string | undefined;
}

function expectedObservations(summary: Json): Map<string, Observation> {
  const out = new Map<string, Observation>();
  const node = obj(summary["node"]);
  const time = (b: Json): string | undefined => str(b["time"]);
  const has = (b: Json, ...keys: string[]): boolean => keys.every((k) => b[k] !== undefined && b[k] !== null);
  const memory = obj(node["memory"]);
  if (has(memory, "availableBytes", "workingSetBytes")) {
    const a = exactInteger(memory["availableBytes"]);
    out.set("memory.available", {
      available: a,
      capacity: a + exactInteger(memory["workingSetBytes"]),
      time: time(memory),
    });
  }
  const pods = list(node["systemContainers"])
    .map(obj)
    .find((c) => c["name"] === "pods");
  const podsMemory = obj(pods?.["memory"]);
  if (has(podsMemory, "availableBytes", "workingSetBytes")) {
    const a = exactInteger(podsMemory["availableBytes"]);
    out.set("allocatableMemory.available", {
      available: a,
      capacity: a + exactInteger(podsMemory["workingSetBytes"]),
      time: time(podsMemory),
    });
  }
  const fsSignals = (prefix: string, fs: unknown): void => {
    if (!isObj(fs)) return;
    if (has(fs, "availableBytes", "capacityBytes")) {
      out.set(`${prefix}.available`, {
        available: exactInteger(fs["availableBytes"]),
        capacity: exactInteger(fs["capacityBytes"]),
        time: time(fs),
      });
    }
    if (has(fs, "inodesFree", "inodes")) {
      out.set(`${prefix}.inodesFree`, {
        available: exactInteger(fs["inodesFree"]),
        capacity: exactInteger(fs["inodes"]),
        time: time(fs),
      });
    }
  };
  fsSignals("nodefs", node["fs"]);
  fsSignals("imagefs", obj(node["runtime"])["imageFs"]);
  fsSignals("containerfs", obj(node["runtime"])["containerFs"]);
  const rlimit = obj(node["rlimit"]);
  if (has(rlimit, "maxpid", "curproc")) {
    const max = exactInteger(rlimit["maxpid"]);
    out.set("pid.available", {
      available: max - exactInteger(rlimit["curproc"]),
      capacity: max,
      time: time(rlimit),
    });
  }
  return out;
}

const CONDITION: Record<string, string> = {
  "memory.available": "MemoryPressure",
  "allocatableMemory.available": "MemoryPressure",
  "pid.available": "PIDPressure",
};
const conditionOf = (signal: string): string => CONDITION[signal] ?? "DiskPressure";
const CONDITION_ORDER = ["MemoryPressure", "DiskPressure", "PIDPressure"];

// ---------------------------------------------------------------------------------------------
// Scenario building.

const DEFAULTS: Record<string, string> = {
  "memory.available": "100Mi",
  "nodefs.available": "10%",
  "nodefs.inodesFree": "5%",
  "imagefs.available": "15%",
  "imagefs.inodesFree": "5%",
};

interface DataCase {
  readonly name: string;
  readonly summaryFile: string;
  /** pods-N.json, or synthetic pods built from the summary's podRefs. */
  readonly pods: { file: string } | { synthetic: true };
  readonly kind: Kind;
}

const CASES: DataCase[] = [
  {
    name: "summary-1 + pods-1, memory",
    summaryFile: "summary-1.json",
    pods: { file: "pods-1.json" },
    kind: "memory",
  },
  {
    name: "summary-1 + pods-1, disk",
    summaryFile: "summary-1.json",
    pods: { file: "pods-1.json" },
    kind: "disk-bytes",
  },
  {
    name: "summary-1 + pods-1, pids",
    summaryFile: "summary-1.json",
    pods: { file: "pods-1.json" },
    kind: "pid",
  },
  {
    name: "summary-2 + pods-2, memory",
    summaryFile: "summary-2.json",
    pods: { file: "pods-2.json" },
    kind: "memory",
  },
  {
    name: "summary-2 + pods-2, disk",
    summaryFile: "summary-2.json",
    pods: { file: "pods-2.json" },
    kind: "disk-bytes",
  },
  {
    name: "summary-2 + pods-2, pids",
    summaryFile: "summary-2.json",
    pods: { file: "pods-2.json" },
    kind: "pid",
  },
  {
    name: "summary-3 + synthetic pods, memory",
    summaryFile: "summary-3.json",
    pods: { synthetic: true },
    kind: "memory",
  },
  {
    name: "summary-3 + synthetic pods, disk",
    summaryFile: "summary-3.json",
    pods: { synthetic: true },
    kind: "disk-bytes",
  },
  {
    name: "summary-4 + synthetic pods, memory",
    summaryFile: "summary-4.json",
    pods: { synthetic: true },
    kind: "memory",
  },
  {
    name: "summary-5 + synthetic pods, memory",
    summaryFile: "summary-5.json",
    pods: { synthetic: true },
    kind: "memory",
  },
  {
    name: "summary-6 + synthetic pods, memory",
    summaryFile: "summary-6.json",
    pods: { synthetic: true },
    kind: "memory",
  },
  {
    name: "summary-7 + synthetic pods, memory",
    summaryFile: "summary-7.json",
    pods: { synthetic: true },
    kind: "memory",
  },
];

/**
 * Pods for a summary without a pod list: one per podRef (its uid when the ref has one), varied
 * priorities and requests, the second pod a mirror pod (critical), plus a Failed pod with no stats.
 */
function syntheticPods(summary: Json): Json[] {
  const pods = list(summary["pods"])
    .map(obj)
    .map((stats, i): Json => {
      const ref = obj(stats["podRef"]);
      const uid = str(ref["uid"]);
      const containers = list(stats["containers"]).map((c) => ({
        name: str(obj(c)["name"]) ?? "c",
        ...(i % 2 === 1 ? { resources: { requests: { memory: "16Mi", "ephemeral-storage": "1Mi" } } } : {}),
      }));
      const volumes = list(stats["volume"]).map((v) => {
        const name = str(obj(v)["name"]) ?? "v";
        return /-token-/.test(name) ? { name, secret: { secretName: name } } : { name, emptyDir: {} };
      });
      return {
        metadata: {
          name: str(ref["name"]),
          namespace: str(ref["namespace"]) ?? "default",
          ...(uid !== undefined ? { uid } : {}),
          ...(i === 1 ? { annotations: { "kubernetes.io/config.mirror": "mirror" } } : {}),
        },
        spec: {
          priority: [0, 0, 1000, 0, 500][i % 5],
          containers: containers.length > 0 ? containers : [{ name: "c" }],
          volumes,
        },
      };
    });
  pods.push({
    metadata: { name: "finished-job", namespace: "default" },
    spec: { containers: [{ name: "main" }] },
    status: { phase: "Failed" },
  });
  return pods;
}

/** The summary with every `time` removed: each step that reads it sees fresh stats. */
function withoutTimes(text: string): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!isObj(v)) return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== "time")
        .map(([k, x]) => [k, strip(x)]),
    );
  };
  // Big integers travel as digit strings through parse/stringify; put them back as numbers.
  return JSON.stringify(strip(parseJsonKeepingBigIntegers(text)), null, 1).replace(/: "(\d{16,})"/g, ": $1");
}

function thresholdConfig(
  kind: Kind,
  observations: ReadonlyMap<string, Observation>,
): { signal: string; value: string } {
  // Just above the node's real figure, as a plain byte/count quantity, so that pressure fires.
  const signal =
    kind === "memory" ? "memory.available" : kind === "disk-bytes" ? "nodefs.available" : "pid.available";
  const o = observations.get(signal);
  assert.ok(o !== undefined, `the data has no ${signal} observation`);
  const margin = kind === "memory" ? 1n << 20n : kind === "disk-bytes" ? 1n << 30n : 1n;
  return { signal, value: String(o.available + margin) };
}

// ---------------------------------------------------------------------------------------------

describe("replay over the real data in test/fixtures/real-data", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("replay-data");
  after(() => scratch.cleanup());

  for (const c of CASES) {
    test(`${c.name}: observations, conditions, and every victim per the reference ranking`, () => {
      const summaryText = readFileSync(join(DATA, c.summaryFile), "utf8");
      const summary = obj(parseJsonKeepingBigIntegers(summaryText));
      const rawPods =
        "file" in c.pods
          ? list(obj(JSON.parse(readFileSync(join(DATA, c.pods.file), "utf8")))["items"])
          : syntheticPods(summary);
      const pods = rawPods.map(refPod);
      const observations = expectedObservations(summary);
      const threshold = thresholdConfig(c.kind, observations);

      const active = pods.filter((p) => !p.terminated);
      const evictable = active.filter((p) => !p.critical);
      const fresh = scratch.write(`${c.summaryFile}-${c.kind}-fresh.json`, withoutTimes(summaryText));
      const podsFile =
        "file" in c.pods
          ? join(DATA, c.pods.file)
          : scratch.write(
              `${c.summaryFile}-pods.json`,
              JSON.stringify({ apiVersion: "v1", kind: "PodList", items: rawPods }),
            );
      // Step 0 reads the file as it is; each step evicts one pod, and the last step finds only
      // critical pods left to refuse.
      const stepCount = evictable.length + 1;
      const start = "2030-01-01T00:00:00Z";
      const scenario = {
        start,
        config: {
          evictionHard: { [threshold.signal]: threshold.value },
          // Only the memory case keeps the default hard thresholds, to check them too.
          mergeDefaultEvictionSettings: c.kind === "memory",
        },
        filesystems: "single",
        pods: podsFile,
        steps: Array.from({ length: stepCount }, (_, i) => ({
          at: `${i * 10}s`,
          summary: i === 0 ? join(DATA, c.summaryFile) : fresh,
        })),
      };
      const file = scratch.write(`${c.summaryFile}-${c.kind}.json`, JSON.stringify(scenario));
      const { steps } = replayJsonl(file);
      assert.equal(steps.length, stepCount);

      // Thresholds the test expects to be met, evaluated here from the file's numbers.
      const configured: [string, string][] = [[threshold.signal, threshold.value]];
      if (c.kind === "memory")
        for (const [s, v] of Object.entries(DEFAULTS)) if (s !== threshold.signal) configured.push([s, v]);
      const hardMemory = configured.find(([s]) => s === "memory.available");
      if (hardMemory !== undefined) configured.push(["allocatableMemory.available", hardMemory[1]]);
      const metSignals = new Set(
        configured
          .filter(([s, v]) => {
            const o = observations.get(s);
            return o !== undefined && o.available < thresholdAmount(v, o.capacity);
          })
          .map(([s]) => s),
      );
      assert.ok(metSignals.has(threshold.signal), "the threshold is set to fire");
      const wantConditions = CONDITION_ORDER.filter((cond) =>
        [...metSignals].some((s) => conditionOf(s) === cond),
      );

      const gone = new Set<string>();
      const usage = new Map(active.map((p) => [p.key, usageOf(p, statsFor(p, summary))]));
      const cmp = referenceComparator(c.kind, usage);

      steps.forEach((step, i) => {
        const where = `${c.name}, step ${formatGoSeconds(i * 10)}`;
        assert.equal(step["at"], formatGoSeconds(i * 10), where);
        // Observations: exactly the signals the summary reports, with the file's numbers.
        const got = obj(step["observations"]);
        assert.deepEqual(
          Object.keys(got).sort(),
          [...observations.keys()].sort(),
          `${where}: observed signals`,
        );
        const stepTime = new Date(Date.parse(start) + i * 10_000).toISOString().replace(".000Z", "Z");
        for (const [signal, want] of observations) {
          const o = obj(got[signal]);
          assert.equal(
            quantityToInteger(String(o["available"])),
            want.available,
            `${where}: ${signal} available ${String(o["available"])}`,
          );
          assert.equal(
            quantityToInteger(String(o["capacity"])),
            want.capacity,
            `${where}: ${signal} capacity ${String(o["capacity"])}`,
          );
          assert.equal(o["time"], i === 0 ? (want.time ?? stepTime) : stepTime, `${where}: ${signal} time`);
        }
        // Thresholds met. On a single filesystem the containerfs copy of the nodefs threshold is met
        // too (same figures), but only from the second sync on: the first evaluates the thresholds as
        // configured, before the containerfs copies exist (kubelet-semantics 1.6, upstream quirk).
        const met = list(step["thresholdsMet"]).map((t) => str(obj(t)["signal"]));
        const wantMet =
          c.kind === "disk-bytes" && i > 0 && observations.has("containerfs.available")
            ? [...metSignals, "containerfs.available"]
            : [...metSignals];
        assert.deepEqual([...new Set(met)].sort(), wantMet.sort(), `${where}: thresholdsMet`);
        assert.deepEqual(step["conditions"], wantConditions, `${where}: conditions`);

        const stillActive = active.filter((p) => !gone.has(p.key));
        const ranking = list(step["ranking"]).map(String);
        const evicted = evictedPods(step);
        const refused = list(step["refused"]).map((r) => String(obj(r)["pod"]));

        // Terminated pods are never active: never ranked, evicted or refused.
        for (const p of pods.filter((x) => x.terminated)) {
          assert.ok(
            ![...ranking, ...evicted, ...refused].includes(p.key),
            `${where}: terminated ${p.key} is active`,
          );
        }
        // Exactly the still-active pods are ranked, in an order the reference agrees with.
        assert.deepEqual([...ranking].sort(), stillActive.map((p) => p.key).sort(), `${where}: ranked pods`);
        const byKey = new Map(active.map((p) => [p.key, p]));
        for (let x = 0; x < ranking.length; x++) {
          for (let y = x + 1; y < ranking.length; y++) {
            const a = byKey.get(ranking[x] ?? "");
            const b = byKey.get(ranking[y] ?? "");
            assert.ok(a !== undefined && b !== undefined);
            assert.ok(
              cmp(b, a) >= 0,
              `${where}: ${b.key} should rank before ${a.key}; engine ranking ${ranking.join(", ")}`,
            );
          }
        }

        const order = [...stillActive].sort(cmp);
        const firstEvictable = order.find((p) => !p.critical);
        if (firstEvictable === undefined) {
          // Only critical pods are left: every one is refused, none is evicted.
          assert.equal(i, stepCount - 1, `${where}: ran out of evictable pods early`);
          assert.deepEqual(evicted, [], `${where}: a critical pod was evicted`);
          assert.deepEqual([...refused].sort(), stillActive.map((p) => p.key).sort(), `${where}: refused`);
          return;
        }
        // The victim: the reference's first non-critical pod (or one tied with it).
        const acceptable = order.filter((p) => !p.critical && cmp(p, firstEvictable) === 0).map((p) => p.key);
        assert.equal(
          evicted.length,
          1,
          `${where}: one pressure eviction per step, got ${JSON.stringify(evicted)}`,
        );
        const victim = evicted[0] ?? "";
        assert.ok(
          acceptable.includes(victim),
          `${where}: evicted ${victim}, the reference expects one of ${acceptable.join(", ")}`,
        );
        assert.ok(!byKey.get(victim)?.critical, `${where}: critical ${victim} evicted`);
        // Everything ranked before the victim was refused, for being critical.
        const before = ranking.slice(0, ranking.indexOf(victim));
        assert.deepEqual(refused, before, `${where}: refused`);
        for (const r of refused) assert.ok(byKey.get(r)?.critical, `${where}: ${r} refused but not critical`);
        const e = obj(list(step["evictions"])[0]);
        assert.equal(e["kind"], "pressure");
        const actedOn = str(obj(step["actedOn"])["signal"]);
        assert.ok(
          actedOn !== undefined && wantMet.includes(actedOn),
          `${where}: acted on ${String(actedOn)}`,
        );
        assert.equal(e["signal"], actedOn);
        assert.equal(e["gracePeriodSeconds"], 1, `${where}: hard threshold, 1s grace`);
        assert.equal(e["uid"], byKey.get(victim)?.uid);
        gone.add(victim);
      });
      assert.equal(
        gone.size,
        evictable.length,
        `${c.name}: every non-critical active pod was evicted, one per step`,
      );
    });
  }
});
