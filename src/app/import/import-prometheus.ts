/**
 * `evictd import prometheus`: a node's past, rebuilt from the series Prometheus already holds, as
 * the trace `evictd record` would have written (docs/prometheus-import.md). The range is read in
 * chunks (a week of a 110-pod node at one query would exceed Prometheus' default sample limit),
 * each chunk one query per series family, and every step of the chunk is answered from those raw
 * samples. Lines go to a sink whole, in order; the caller makes the file appear only when complete.
 */
import type { Issue } from "../../core/issues.js";
import { formatDurationMs } from "../../core/time/duration.js";
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";
import { count } from "../plural.js";
import { InputError } from "../../errors.js";
import { TraceRecorder } from "../cluster/trace-recorder.js";
import {
  importSelectors,
  podScopedSelectors,
  promString,
  type ImportSelectorOptions,
} from "./import-queries.js";
import { figureSources, type FigureSources, type SeriesCoverage } from "./import-source.js";
import { NodeSampleBuilder, type SeriesKind } from "./node-sample-builder.js";
import { nodeInfoEnvironment } from "./node-info-environment.js";
import { BUILT_IN_PRIORITY_CLASSES } from "./pod-from-metrics.js";
import type { PrometheusPort, PrometheusSeries } from "./prometheus-port.js";

export interface ImportOptions extends ImportSelectorOptions {
  readonly prometheus: PrometheusPort;
  /** Epoch ms of the first and last step. */
  readonly fromMs: number;
  readonly toMs: number;
  readonly stepMs: number;
  /** Length of time one round of queries covers. */
  readonly chunkMs: number;
  /** How old a sample may be and still stand for a step; default twice the scrape interval found. */
  readonly lookbackMs?: number;
  /** Priority class → value, beside the built-in classes. */
  readonly priorityClasses: ReadonlyMap<string, number>;
  /** The KubeletConfiguration the trace's header carries (the node's, when the user has it). */
  readonly config: unknown;
  /** Where the data came from, for the header (no credentials). */
  readonly sourceUrl: string;
  /** Starts the output; called once, after the probe found data. */
  readonly begin: () => void;
  readonly append: (line: string) => void;
  readonly warn: (message: string) => void;
  readonly progress?: (line: string) => void;
  readonly signal?: AbortSignal;
}

export interface ImportResult {
  readonly steps: number;
  /** Steps left out because the node's memory had no sample within the lookback. */
  readonly skippedSteps: number;
  readonly gaps: number;
  readonly pods: number;
  readonly lookbackMs: number;
  readonly scrapeIntervalMs: number | undefined;
  readonly figures: FigureSources;
}

function inputError(path: string, message: string): InputError {
  const issue: Issue = { severity: "error", path, code: "no-data", message };
  return new InputError([issue]);
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The scrape interval, as the spacing of the node memory samples says. */
function scrapeIntervalOf(series: readonly PrometheusSeries[]): number | undefined {
  const diffs: number[] = [];
  for (const s of series)
    for (let i = 1; i < s.samples.length; i++)
      diffs.push(
        (s.samples[i] as readonly [number, number])[0] - (s.samples[i - 1] as readonly [number, number])[0],
      );
  return median(diffs);
}

export async function importPrometheus(o: ImportOptions): Promise<ImportResult> {
  const q = importSelectors(o);
  const range = `between ${formatRfc3339Ms(o.fromMs)} and ${formatRfc3339Ms(o.toMs)}`;

  // The probe: is there anything for this node at all? Say which nodes there are when not.
  const memory = await o.prometheus.series(q.machineMemory, o.fromMs, o.toMs, o.signal);
  if (memory.length === 0) {
    const all = await o.prometheus.series("machine_memory_bytes", o.fromMs, o.toMs, o.signal);
    const nodes = [...new Set(all.map((l) => l[o.nodeLabel]).filter((n) => n !== undefined))].sort();
    throw inputError(
      "--node",
      all.length === 0
        ? `Prometheus has no machine_memory_bytes series ${range}: is cAdvisor (the kubelet's /metrics/cadvisor) scraped?`
        : nodes.length === 0
          ? `no machine_memory_bytes series carries a ${promString(o.nodeLabel)} label ${range}; name the label with --node-label`
          : `no machine_memory_bytes{${o.nodeLabel}=${promString(o.node)}} ${range}; nodes with data: ${nodes.slice(0, 20).join(", ")}${nodes.length > 20 ? `, and ${nodes.length - 20} more` : ""}`,
    );
  }
  const info = await o.prometheus.series(q.podInfo, o.fromMs, o.toMs, o.signal);
  if (info.length === 0)
    throw inputError(
      "--node",
      `Prometheus has no kube_pod_info{node=${promString(o.node)}} ${range}: is kube-state-metrics scraped? Without it the import cannot tell which pods ran on the node`,
    );

  const any = async (selector: string): Promise<boolean> =>
    (await o.prometheus.series(selector, o.fromMs, o.toMs, o.signal)).length > 0;
  const fsAt = (mount: string): string =>
    q.fsAvail.replace(/mountpoint=~"[^"]*"/, `mountpoint=${promString(mount)}`);
  const podSeries = podScopedSelectors(info.map((l) => l["pod"] ?? ""));
  const coverage: SeriesCoverage = {
    podsCgroupLimit: await any(q.podsLimit),
    nodefs: await any(fsAt(o.nodefsMountpoint)),
    imagefs: await any(fsAt(o.imagefsMountpoint)),
    pids: (await any(q.pids)) && (await any(q.pidMax)),
    qosClass: await any(podSeries.qos),
    requests: (await any(podSeries.requests)) || (await any(podSeries.limits)),
  };
  const figures = figureSources(coverage);
  // The node's versions, for the header's environment: one look at its kube_node_info labels.
  const nodeInfo = nodeInfoEnvironment(await o.prometheus.series(q.nodeInfo, o.fromMs, o.toMs, o.signal));
  for (const a of nodeInfo.ambiguous)
    o.warn(
      `kube_node_info shows several ${a.label} values ${range} (${a.values.join(", ")}): the trace's environment leaves it out`,
    );
  for (const [signal, f] of Object.entries(figures))
    if (f.source === "missing" && !signal.startsWith("pod "))
      o.warn(`${signal}: ${f.from}; the replay sees no such signal`);

  const head = await o.prometheus.samples(
    q.machineMemory,
    Math.min(o.toMs, o.fromMs + 3_600_000),
    3_600_000,
    o.signal,
  );
  const scrapeIntervalMs = scrapeIntervalOf(head);
  const lookbackMs = o.lookbackMs ?? 2 * Math.max(scrapeIntervalMs ?? o.stepMs, o.stepMs);
  if (scrapeIntervalMs !== undefined && scrapeIntervalMs > o.stepMs)
    o.warn(
      `the node's samples are ${formatDurationMs(scrapeIntervalMs)} apart, --step is ${formatDurationMs(o.stepMs)}: consecutive steps repeat a sample, and the replay treats them as not updated (as the kubelet treats stats that have not moved)`,
    );

  const priorityClasses = new Map([...BUILT_IN_PRIORITY_CLASSES, ...o.priorityClasses]);
  const builder = new NodeSampleBuilder({
    node: o.node,
    lookbackMs,
    nodefsMountpoint: o.nodefsMountpoint,
    imagefsMountpoint: o.imagefsMountpoint,
    priorityClasses,
  });

  let recorder: TraceRecorder | undefined;
  let steps = 0;
  let skippedSteps = 0;
  let gaps = 0;
  let gapFrom: number | undefined;
  let gapSteps = 0;
  const pods = new Set<string>();
  const endGap = (): void => {
    if (gapFrom === undefined) return;
    gaps++;
    o.warn(
      `no node memory sample within ${formatDurationMs(lookbackMs)} from ${formatRfc3339Ms(gapFrom)}: ${count(gapSteps, "step")} left out`,
    );
    gapFrom = undefined;
    gapSteps = 0;
  };

  const totalSteps = Math.floor((o.toMs - o.fromMs) / o.stepMs) + 1;
  const families: [SeriesKind, string][] = [
    ["machineMemory", q.machineMemory],
    ["workingSet", q.workingSet],
    ["usage", q.usage],
    ["podsLimit", q.podsLimit],
    ["fsAvail", q.fsAvail],
    ["fsSize", q.fsSize],
    ["fsFilesFree", q.fsFilesFree],
    ["fsFiles", q.fsFiles],
    ["pids", q.pids],
    ["pidMax", q.pidMax],
    ["podInfo", q.podInfo],
  ];
  for (let chunkStart = o.fromMs; chunkStart <= o.toMs; chunkStart += o.chunkMs) {
    o.signal?.throwIfAborted();
    const firstStep = Math.ceil((chunkStart - o.fromMs) / o.stepMs);
    const chunkEnd = Math.min(o.toMs, chunkStart + o.chunkMs - 1);
    const lastStep = Math.floor((chunkEnd - o.fromMs) / o.stepMs);
    if (lastStep < firstStep) continue;
    const windowEnd = o.fromMs + lastStep * o.stepMs;
    // The API's window is open at its start: 1 ms more takes in a sample exactly a lookback old.
    const windowMs = windowEnd - (o.fromMs + firstStep * o.stepMs) + lookbackMs + 1;
    builder.clearSeries();
    for (const [kind, selector] of families)
      builder.add(kind, await o.prometheus.samples(selector, windowEnd, windowMs, o.signal));
    const scoped = podScopedSelectors(builder.podNames());
    builder.add("phase", await o.prometheus.samples(scoped.phase, windowEnd, windowMs, o.signal));
    builder.add("qos", await o.prometheus.samples(scoped.qos, windowEnd, windowMs, o.signal));
    builder.add(
      "containerInfo",
      await o.prometheus.samples(scoped.containerInfo, windowEnd, windowMs, o.signal),
    );
    builder.add("requests", await o.prometheus.samples(scoped.requests, windowEnd, windowMs, o.signal));
    builder.add("limits", await o.prometheus.samples(scoped.limits, windowEnd, windowMs, o.signal));

    for (let i = firstStep; i <= lastStep; i++) {
      const t = o.fromMs + i * o.stepMs;
      const sample = builder.sampleAt(t);
      if (sample === undefined) {
        skippedSteps++;
        gapFrom ??= t;
        gapSteps++;
        continue;
      }
      endGap();
      if (recorder === undefined) {
        o.begin();
        recorder = new TraceRecorder(
          {
            start: o.fromMs,
            config: o.config,
            node: nodeOf(o.node, sample.summary),
            ...(nodeInfo.environment !== undefined ? { environment: nodeInfo.environment } : {}),
            source: sourceHeader(o, lookbackMs, scrapeIntervalMs, figures),
            evictedPods: "remove",
            pods: sample.activePods,
            summaries: "lean",
          },
          o.append,
        );
      }
      for (const p of sample.activePods) {
        const uid = (p as { metadata: { uid: string } }).metadata.uid;
        pods.add(uid);
      }
      recorder.step({ now: t, summary: sample.summary, activePods: sample.activePods });
      steps++;
    }
    o.progress?.(
      `${formatRfc3339Ms(windowEnd)}: ${Math.min(lastStep + 1, totalSteps)}/${totalSteps} steps, ${steps} written, ${pods.size} pods`,
    );
  }
  endGap();
  if (recorder === undefined)
    throw inputError(
      "--from",
      `no step ${range} has both machine_memory_bytes and the node's working set (container_memory_working_set_bytes{id="/"}) within ${formatDurationMs(lookbackMs)}`,
    );
  for (const c of builder.unknownPriorityClasses)
    o.warn(
      `priority class ${promString(c)} is not a built-in one: its pods replay at priority 0; give its value with --priority-class ${c}=VALUE`,
    );
  return {
    steps,
    skippedSteps,
    gaps,
    pods: pods.size,
    lookbackMs,
    scrapeIntervalMs,
    figures,
  };
}

/** The header's `source`: where the trace came from and what its figures rest on. */
function sourceHeader(
  o: ImportOptions,
  lookbackMs: number,
  scrapeIntervalMs: number | undefined,
  figures: FigureSources,
): Record<string, unknown> {
  return {
    kind: "prometheus",
    url: o.sourceUrl,
    node: o.node,
    from: formatRfc3339Ms(o.fromMs),
    to: formatRfc3339Ms(o.toMs),
    step: formatDurationMs(o.stepMs),
    lookback: formatDurationMs(lookbackMs),
    ...(scrapeIntervalMs !== undefined ? { scrapeInterval: formatDurationMs(scrapeIntervalMs) } : {}),
    figures: Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, `${f.source}: ${f.from}`])),
  };
}

/** The Node the header carries: its memory capacity, and allocatable as the pods cgroup's limit. */
function nodeOf(name: string, summary: Record<string, unknown>): Record<string, unknown> {
  type Memory = { availableBytes: number; workingSetBytes: number };
  const node = summary["node"] as { memory: Memory; systemContainers?: { memory: Memory }[] };
  const capacity = node.memory.availableBytes + node.memory.workingSetBytes;
  const pods = node.systemContainers?.[0]?.memory;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    status: {
      capacity: { memory: String(capacity) },
      allocatable: {
        memory: String(pods !== undefined ? pods.availableBytes + pods.workingSetBytes : capacity),
      },
    },
  };
}
