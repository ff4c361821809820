/**
 * tools/trace-openmetrics: a generated trace turned into OpenMetrics is well-formed for promtool,
 * and once backfilled into a real Prometheus answers instant queries with the trace's own figures
 * at each step. `evictd import prometheus` is tested against such a server, so what it reads back
 * must be what the trace said; a mistake here would pass for a bug of the import, or hide one.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generateTrace } from "../../tools/trace-generator/generate-trace.js";
import { traceToOpenMetrics } from "../../tools/trace-openmetrics/trace-to-openmetrics.js";
import { quantityMilli } from "../support/oracle/quantity.js";
import { prometheusSkip, startPrometheus, type PrometheusServer } from "../support/prometheus-server.js";

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number => {
  assert.equal(typeof v, "number");
  return v as number;
};

const STEP_MS = 10_000;

/**
 * 20 pods from step 1360 of seed 3's node history: with 12 pods the node never comes under
 * pressure (its memory is sized with headroom), and this window holds a soft eviction at step 21
 * and its replacement's arrival. The `eviction` richness keeps UIDs, containers and usage, which
 * the lean `recorded` one drops (checked separately below).
 */
const generated = generateTrace({
  steps: 60,
  pods: 20,
  format: "jsonl",
  richness: "eviction",
  seed: 3,
  fromStep: 1360,
});
const eviction = generated.info.predictedEvictions[0];
assert.ok(eviction !== undefined, "the trace window must hold an eviction");
/** The step whose Summary no longer lists the evicted pod: the trace records its removal there. */
const removedAt = eviction.step + 1;

/**
 * The generator leaves evicted pods to the replay (`evictedPods: remove`); a recording says so with
 * `removePods` at the step the pod is gone, which is what the converter reads.
 */
const traceLines = generated.text
  .trimEnd()
  .split("\n")
  .map((line, i) =>
    i === removedAt + 1 ? `${line.slice(0, -1)},"removePods":${JSON.stringify([eviction.pod])}}` : line,
  );
const trace = traceLines.join("\n") + "\n";
const header = obj(JSON.parse(traceLines[0] ?? "{}"));
const steps = traceLines.slice(1).map((l) => obj(JSON.parse(l)));
const start = Date.parse(str(header["start"]));
const node = str(obj(obj(header["node"])["metadata"])["name"]);
/** Seconds since the epoch of step k (steps are 10 s apart in generated traces). */
const at = (k: number): number => (start + k * STEP_MS) / 1000;
const summaryAt = (k: number): Json => obj(steps[k]?.["summary"]);
const podKey = (pod: unknown): string =>
  `${str(obj(obj(pod)["metadata"])["namespace"]) || "default"}/${str(obj(obj(pod)["metadata"])["name"])}`;

/** The active pods at each step, as the replay format defines them. */
function activePods(k: number): Map<string, Json> {
  const active = new Map<string, Json>(list(header["pods"]).map((p) => [podKey(p), obj(p)]));
  for (let i = 0; i <= k; i++) {
    for (const key of list(steps[i]?.["removePods"])) active.delete(str(key));
    for (const p of list(steps[i]?.["addPods"])) active.set(podKey(p), obj(p));
  }
  return active;
}

const openMetrics = traceToOpenMetrics(trace, {});

describe("trace-to-openmetrics: the text", () => {
  test("ends with # EOF, one # TYPE per family before its samples, families contiguous, time increasing", () => {
    assert.ok(openMetrics.endsWith("\n# EOF\n"));
    const done = new Set<string>();
    let family: string | undefined;
    const lastTime = new Map<string, number>();
    const lines = openMetrics.split("\n").slice(0, -2); // up to # EOF
    assert.ok(lines.length > 1000);
    for (const line of lines) {
      const type = /^# TYPE (\S+) gauge$/.exec(line);
      if (type !== null) {
        const name = type[1] ?? "";
        assert.ok(!done.has(name), `family ${name} appears twice`);
        if (family !== undefined) done.add(family);
        family = name;
        continue;
      }
      const sample = /^([a-z_]+)(\{[^}]*\}) (\S+) (\d+\.\d{3})$/.exec(line);
      assert.ok(sample !== null, `not a sample line: ${line}`);
      const [, name = "", labels = "", , time = ""] = sample;
      assert.equal(name, family, `sample of ${name} inside family ${family ?? "(none)"}`);
      const series = name + labels;
      const t = Number(time);
      assert.ok(t > (lastTime.get(series) ?? 0), `${series}: time goes back at ${time}`);
      lastTime.set(series, t);
    }
  });

  test("integers are printed with all their digits", () => {
    assert.doesNotMatch(openMetrics, / -?\d+(\.\d+)?e[+-]?\d+ /);
    const value = summaryAt(0)["node"];
    const fsAvailable = num(obj(obj(value)["fs"])["availableBytes"]);
    assert.match(
      openMetrics,
      new RegExp(`node_filesystem_avail_bytes\\{[^}]*mountpoint="/"\\} ${fsAvailable} `),
    );
  });

  test("omit leaves a metric out entirely", () => {
    const omitted = traceToOpenMetrics(trace, { omit: ["machine_memory_bytes"] });
    assert.doesNotMatch(omitted, /^(# TYPE )?machine_memory_bytes/m);
    assert.match(omitted, /^container_memory_working_set_bytes\{/m);
    assert.match(openMetrics, /^machine_memory_bytes\{/m);
  });

  test("a lean (recorded) trace: pods named by namespace/name get their UIDs and QoS from the pod objects", () => {
    const lean = generateTrace({ steps: 3, pods: 12, format: "jsonl", richness: "recorded", seed: 3 });
    const text = traceToOpenMetrics(lean.text, { node: "n1", nodeExporterInstance: "n1:9100" });
    const leanHeader = obj(JSON.parse(lean.text.split("\n")[0] ?? "{}"));
    for (const p of list(leanHeader["pods"])) {
      const metadata = obj(obj(p)["metadata"]);
      const qos = str(obj(obj(p)["status"])["qosClass"]);
      const uid = str(metadata["uid"]).replaceAll("-", "_");
      const id =
        qos === "Guaranteed"
          ? `/kubepods.slice/kubepods-pod${uid}.slice`
          : `/kubepods.slice/kubepods-${qos.toLowerCase()}.slice/kubepods-${qos.toLowerCase()}-pod${uid}.slice`;
      assert.ok(
        text.includes(`id="${id}",namespace="${str(metadata["namespace"])}",pod="${str(metadata["name"])}"}`),
        `no cgroup series for ${podKey(p)}`,
      );
    }
    assert.match(text, /^node_processes_pids\{job="node-exporter",instance="n1:9100"\} /m);
    assert.match(text, /^machine_memory_bytes\{[^}]*node="n1"/m);
  });
});

interface Sample {
  readonly metric: Record<string, string>;
  readonly value: number;
}

describe("trace-to-openmetrics: backfilled into a real Prometheus", { skip: prometheusSkip }, () => {
  let prometheus: PrometheusServer | undefined;
  before(async () => {
    prometheus = await startPrometheus({ openMetrics });
  });
  after(async () => {
    await prometheus?.stop();
  });

  async function query(promql: string, time: number): Promise<Sample[]> {
    assert.ok(prometheus !== undefined);
    const response = await fetch(`${prometheus.url}/api/v1/query`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ query: promql, time: time.toFixed(3) }),
    });
    const body = obj(await response.json());
    assert.equal(body["status"], "success", `${promql}: ${JSON.stringify(body)}`);
    const data = obj(body["data"]);
    assert.equal(data["resultType"], "vector");
    return list(data["result"]).map((r) => ({
      metric: obj(obj(r)["metric"]) as Record<string, string>,
      value: Number(list(obj(r)["value"])[1]),
    }));
  }

  async function one(promql: string, time: number): Promise<number> {
    const result = await query(promql, time);
    assert.equal(result.length, 1, `${promql} at ${time}: ${JSON.stringify(result)}`);
    return (result[0] as Sample).value;
  }

  test("node memory: capacity, the root cgroup's working set, the pods cgroup's limit", async () => {
    for (const k of [0, 10, 37]) {
      const memory = obj(obj(summaryAt(k)["node"])["memory"]);
      const available = num(memory["availableBytes"]);
      const workingSet = num(memory["workingSetBytes"]);
      assert.equal(
        await one(`machine_memory_bytes{node=${JSON.stringify(node)}}`, at(k)),
        available + workingSet,
      );
      assert.equal(await one(`container_memory_working_set_bytes{id="/"}`, at(k)), workingSet);
      assert.equal(await one(`container_memory_usage_bytes{id="/"}`, at(k)), num(memory["usageBytes"]));
      const pods = obj(
        list(obj(summaryAt(k)["node"])["systemContainers"])
          .map(obj)
          .find((c) => c["name"] === "pods")?.["memory"],
      );
      assert.equal(
        await one(`container_spec_memory_limit_bytes{id="/kubepods.slice"}`, at(k)),
        num(pods["availableBytes"]) + num(pods["workingSetBytes"]),
      );
    }
  });

  test("a pod's and a container's working set, and a pod's memory requests", async () => {
    const k = 12;
    const podStats = list(summaryAt(k)["pods"])
      .map(obj)
      .find((p) => list(p["containers"]).length > 1);
    assert.ok(podStats !== undefined, "a pod with more than one container");
    const ref = obj(podStats["podRef"]);
    const selector = `namespace=${JSON.stringify(str(ref["namespace"]))},pod=${JSON.stringify(str(ref["name"]))}`;
    assert.equal(
      await one(`container_memory_working_set_bytes{${selector},container=""}`, at(k)),
      num(obj(podStats["memory"])["workingSetBytes"]),
    );
    const container = obj(list(podStats["containers"])[1]);
    const series = await query(
      `container_memory_working_set_bytes{${selector},container=${JSON.stringify(str(container["name"]))}}`,
      at(k),
    );
    assert.equal(series.length, 1);
    assert.equal(series[0]?.value, num(obj(container["memory"])["workingSetBytes"]));
    assert.match(
      series[0]?.metric["id"] ?? "",
      /^\/kubepods\.slice\/.*-pod[0-9a-f_]+\.slice\/cri-containerd-[0-9a-f]{64}\.scope$/,
    );

    // Requests: pick a pod whose containers request memory, and sum them from its spec.
    const [key, pod] = [...activePods(k)].find(([, p]) =>
      list(obj(p["spec"])["containers"]).some(
        (c) => str(obj(obj(obj(c)["resources"])["requests"])["memory"]) !== "",
      ),
    ) ?? ["", {}];
    assert.notEqual(key, "");
    let expected = 0n;
    for (const c of list(obj(pod["spec"])["containers"])) {
      const memory = str(obj(obj(obj(c)["resources"])["requests"])["memory"]);
      if (memory !== "") expected += quantityMilli(memory) / 1000n;
    }
    const [namespace, name] = key.split("/");
    assert.equal(
      await one(
        `sum(kube_pod_container_resource_requests{namespace=${JSON.stringify(namespace)},pod=${JSON.stringify(name)},resource="memory",unit="byte"})`,
        at(k),
      ),
      Number(expected),
    );
  });

  test("node-exporter: nodefs and imagefs, processes", async () => {
    const k = 20;
    const stats = obj(summaryAt(k)["node"]);
    const nodefs = obj(stats["fs"]);
    const imagefs = obj(obj(stats["runtime"])["imageFs"]);
    const instance = `instance=${JSON.stringify(node)}`;
    assert.equal(
      await one(`node_filesystem_avail_bytes{${instance},mountpoint="/"}`, at(k)),
      num(nodefs["availableBytes"]),
    );
    assert.equal(
      await one(`node_filesystem_files_free{${instance},mountpoint="/var/lib/containerd"}`, at(k)),
      num(imagefs["inodesFree"]),
    );
    assert.equal(await one(`node_processes_pids{${instance}}`, at(k)), num(obj(stats["rlimit"])["curproc"]));
  });

  test("kube_pod_info counts the active pods", async () => {
    assert.equal(await one("count(kube_pod_info)", at(5)), activePods(5).size);
    // Backfilled series carry no staleness markers: an instant query still returns a series up to
    // 5 minutes (the lookback) after its last sample, so count those sampled at the step itself.
    const later = removedAt + 8; // past the removed pod's 30 s
    const recent = `count(count_over_time(kube_pod_info{node=${JSON.stringify(node)}}[5s]))`;
    assert.equal(await one(recent, at(later)), activePods(later).size);
    assert.equal(activePods(later).size, activePods(5).size - 1);
    const last = steps.length - 1;
    assert.equal(await one(recent, at(last)), activePods(last).size);
  });

  test("a removed pod: Failed for 30 s in kube-state-metrics, its cgroup series gone at once", async () => {
    const [namespace, name] = eviction.pod.split("/");
    const pod = `namespace=${JSON.stringify(namespace)},pod=${JSON.stringify(name)}`;
    const before = await query(`kube_pod_status_phase{${pod}} == 1`, at(removedAt - 1));
    assert.deepEqual(
      before.map((s) => s.metric["phase"]),
      ["Running"],
    );
    for (const k of [removedAt, removedAt + 3]) {
      assert.equal(await one(`kube_pod_status_phase{${pod},phase="Failed"}`, at(k)), 1);
      assert.equal(await one(`kube_pod_status_phase{${pod},phase="Running"}`, at(k)), 0);
    }
    // Gone from the samples 40 s after its removal (the instant query's lookback would still
    // return the last one, hence the window).
    assert.deepEqual(
      await query(`count_over_time(kube_pod_status_phase{${pod}}[5s])`, at(removedAt + 4)),
      [],
    );
    assert.deepEqual(
      await query(`count_over_time(container_memory_working_set_bytes{${pod}}[5s])`, at(removedAt)),
      [],
    );
    assert.equal(
      (await query(`container_memory_working_set_bytes{${pod},container=""}`, at(removedAt - 1))).length,
      1,
    );
  });
});
