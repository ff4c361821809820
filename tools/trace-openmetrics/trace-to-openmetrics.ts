/**
 * Turns a JSONL replay trace (docs/replay-format.md) into OpenMetrics text holding the series a
 * Prometheus-monitored cluster would have recorded for that node: cAdvisor through the kubelet,
 * node-exporter and kube-state-metrics, with the label sets kube-prometheus / prometheus-operator
 * scrapes give them. `promtool tsdb create-blocks-from openmetrics` backfills the text into a real
 * Prometheus, so that `evictd import prometheus` is tested against the real query engine (its
 * lookback, its label matching) and not against our idea of it. Run directly:
 *
 *   node dist/tools/trace-openmetrics/trace-to-openmetrics.js TRACE.jsonl [--node NAME]
 *        [--omit METRIC]... [--node-exporter-instance INSTANCE] > out.om
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseJsonExact, exactInteger } from "../../src/formats/json/parse-json-exact.js";
import { durationToMs, parseGoDuration } from "../../src/core/time/duration.js";
import { parseQuantity, quantityNanos, quantityValue } from "../../src/core/quantity.js";

export interface TraceToOpenMetricsOptions {
  /** The node's name in the series; default the header's node, else each Summary's nodeName. */
  readonly node?: string;
  /** Metric names to leave out entirely (to test what the import does without a series). */
  readonly omit?: readonly string[];
  /** node-exporter's `instance` label; kube-prometheus relabels it to the node's name (default). */
  readonly nodeExporterInstance?: string;
}

/** How long kube-state-metrics keeps reporting a removed (evicted) pod: until it is deleted. */
const REMOVED_POD_LINGER_MS = 30_000;
const KUBELET_INSTANCE = "10.0.0.1:10250";
const HOST_IP = "10.0.0.1";
const KSM_INSTANCE = "10.0.0.9:8080";
const PHASES = ["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const;
const QOS_CLASSES = ["BestEffort", "Burstable", "Guaranteed"] as const;
const NODEFS = { mountpoint: "/", device: "/dev/nvme0n1p1" };
const IMAGEFS = { mountpoint: "/var/lib/containerd", device: "/dev/nvme1n1" };

type Json = Record<string, unknown>;
/** A sample value: a bigint only when the trace held an integer a double cannot (uint64 counters). */
type Value = number | bigint;
type Labels = readonly (readonly [string, string])[];

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** A figure of the trace as a number, or the bigint parseJsonExact's sentinel stands for. */
function value(v: unknown): Value | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  const exact = exactInteger(v);
  if (exact === undefined) return undefined;
  // Within 2^53 a number is exact and cheaper; beyond it only the bigint keeps every digit.
  return exact <= BigInt(Number.MAX_SAFE_INTEGER) && exact >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(exact)
    : exact;
}

const isInteger = (v: Value): boolean => typeof v === "bigint" || Number.isInteger(v);

/** a + b, exactly when both are integers (a capacity is available + working set). */
function add(a: Value | undefined, b: Value | undefined): Value | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (!isInteger(a) || !isInteger(b)) return Number(a) + Number(b);
  const sum = BigInt(a) + BigInt(b);
  return sum <= BigInt(Number.MAX_SAFE_INTEGER) && sum >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(sum)
    : sum;
}

/** OpenMetrics numbers: integers with all their digits (no exponent), floats as JS prints them. */
function formatValue(v: Value): string {
  if (typeof v === "bigint") return v.toString();
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  return Number.isInteger(v) ? BigInt(v).toString() : String(v);
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/**
 * Series grouped by family, then by label set, each keeping its samples in time order: OpenMetrics
 * forbids interleaving families, and promtool appends a series' samples in the order read.
 */
class Families {
  private readonly families = new Map<string, Map<string, string[]>>();
  private readonly omit: ReadonlySet<string>;
  constructor(omit: ReadonlySet<string>) {
    this.omit = omit;
  }

  add(name: string, labels: Labels, v: Value | undefined, timeMs: number): void {
    if (v === undefined || this.omit.has(name)) return;
    let family = this.families.get(name);
    if (family === undefined) this.families.set(name, (family = new Map<string, string[]>()));
    // An empty label value is an absent label to Prometheus: leave it out, as exporters do.
    const text = labels
      .filter(([, lv]) => lv !== "")
      .map(([k, lv]) => `${k}="${escapeLabel(lv)}"`)
      .join(",");
    let samples = family.get(text);
    if (samples === undefined) family.set(text, (samples = []));
    samples.push(`${name}{${text}} ${formatValue(v)} ${(timeMs / 1000).toFixed(3)}\n`);
  }

  render(): string {
    let out = "";
    for (const [name, family] of this.families) {
      out += `# TYPE ${name} gauge\n`;
      for (const samples of family.values()) out += samples.join("");
    }
    return out + "# EOF\n";
  }
}

/** A pod as the API server would store it: the fields the exporters read, with their defaults. */
interface PodInfo {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly phase: string;
  readonly qosClass: string | undefined;
  readonly priorityClassName: string;
  readonly containers: readonly Json[];
}

function podInfo(pod: unknown): PodInfo {
  const o = obj(pod) ?? {};
  const metadata = obj(o["metadata"]) ?? {};
  const spec = obj(o["spec"]) ?? {};
  const status = obj(o["status"]) ?? {};
  const namespace = str(metadata["namespace"]) ?? "default";
  const name = str(metadata["name"]) ?? "";
  const key = `${namespace}/${name}`;
  const containers = Array.isArray(spec["containers"]) ? spec["containers"].filter(isObject) : [];
  return {
    key,
    namespace,
    name,
    uid: str(metadata["uid"]) ?? key, // docs/replay-format.md: the UID defaults to namespace/name
    phase: str(status["phase"]) ?? "Running",
    qosClass: str(status["qosClass"]),
    priorityClassName: str(spec["priorityClassName"]) ?? "",
    containers,
  };
}

/** `pods` of a header or `addPods`/`updatePods` of a step: a list of Pods or a v1 PodList. */
function podList(v: unknown, where: string): unknown[] {
  if (v === undefined) return [];
  if (Array.isArray(v)) return v;
  const items = obj(v)?.["items"];
  if (Array.isArray(items)) return items;
  throw new Error(`${where}: expected a list of Pod objects (a path to a pod file is not supported here)`);
}

/** The systemd cgroup of a pod, as the kubelet's systemd cgroup driver names it. */
function podCgroup(uid: string, qosClass: string | undefined): string {
  const u = uid.replace(/-/g, "_").replace(/[^A-Za-z0-9_]/g, "_");
  if (qosClass === "Guaranteed") return `/kubepods.slice/kubepods-pod${u}.slice`;
  const qos = (qosClass ?? "Burstable").toLowerCase();
  return `/kubepods.slice/kubepods-${qos}.slice/kubepods-${qos}-pod${u}.slice`;
}

/** A containerd container ID (64 hex chars), stable for a pod UID and container name. */
function containerId(uid: string, container: string): string {
  return createHash("sha256").update(`${uid}/${container}`).digest("hex");
}

const image = (container: string): string => `registry.example/${container}:1`;

/** A resource quantity in kube-state-metrics' units: cores for cpu, bytes for the rest. */
function resourceValue(resource: string, quantity: unknown): Value | undefined {
  const text = typeof quantity === "number" ? String(quantity) : str(quantity);
  if (text === undefined) return undefined;
  const q = parseQuantity(text);
  if (resource === "cpu") return Number(quantityNanos(q)) / 1e9;
  const v = quantityValue(q);
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

const KSM_RESOURCES: Readonly<Record<string, { resource: string; unit: string }>> = {
  memory: { resource: "memory", unit: "byte" },
  cpu: { resource: "cpu", unit: "core" },
  "ephemeral-storage": { resource: "ephemeral_storage", unit: "byte" },
};

/** Every non-blank line of the text with its 1-based line number (a BOM and CRs ignored). */
function* lines(text: string): Generator<{ line: string; n: number }> {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let n = 0;
  for (const raw of body.split("\n")) {
    n++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (/^[ \t]*$/.test(line)) continue;
    yield { line, n };
  }
}

function fsDiffers(a: Json, b: Json): boolean {
  return ["availableBytes", "capacityBytes", "inodes", "inodesFree"].some(
    (k) => formatValueOrNone(a[k]) !== formatValueOrNone(b[k]),
  );
}
const formatValueOrNone = (v: unknown): string => {
  const x = value(v);
  return x === undefined ? "" : formatValue(x);
};

/** The OpenMetrics text of a JSONL trace (see the file comment). */
export function traceToOpenMetrics(traceText: string, options: TraceToOpenMetricsOptions): string {
  const out = new Families(new Set(options.omit ?? []));
  let header: Json | undefined;
  let start = 0;
  /** Active pods by namespace/name. */
  const active = new Map<string, PodInfo>();
  /** Every pod the trace has named, so a lean Summary's pods (no UID) can be placed. */
  const known = new Map<string, PodInfo>();
  /** Removed pods kube-state-metrics still reports, with the time they were removed. */
  const lingering = new Map<string, { pod: PodInfo; removedAt: number }>();
  let summary: Json | undefined;

  for (const { line, n } of lines(traceText)) {
    const parsed = parseJsonExact(line);
    if (!isObject(parsed)) throw new Error(`line ${n}: expected a JSON object`);
    if (header === undefined) {
      header = parsed;
      const s = str(header["start"]);
      start = s === undefined ? 0 : Date.parse(s);
      if (Number.isNaN(start)) throw new Error(`line ${n}: start: not an RFC 3339 time`);
      for (const p of podList(header["pods"], `line ${n}: pods`).map(podInfo)) {
        active.set(p.key, p);
        known.set(p.key, p);
      }
      continue;
    }
    const at = str(parsed["at"]);
    if (at === undefined) throw new Error(`line ${n}: at: expected a Go duration string`);
    const time = Math.round(start + durationToMs(parseGoDuration(at)));

    const removed = Array.isArray(parsed["removePods"]) ? parsed["removePods"] : [];
    for (const key of removed) {
      if (typeof key !== "string") continue;
      const pod = active.get(key);
      if (pod === undefined) continue;
      active.delete(key);
      lingering.set(key, { pod, removedAt: time });
    }
    for (const p of podList(parsed["addPods"], `line ${n}: addPods`).map(podInfo)) {
      active.set(p.key, p);
      known.set(p.key, p);
      // Back under the same UID, it is the same pod object again; under another, a new one.
      if (lingering.get(p.key)?.pod.uid === p.uid) lingering.delete(p.key);
    }
    // A pod resized in place (updatePods): kube-state-metrics reports its new version from then on.
    for (const p of podList(parsed["updatePods"], `line ${n}: updatePods`).map(podInfo)) {
      if (active.get(p.key)?.uid !== p.uid) continue;
      active.set(p.key, p);
      known.set(p.key, p);
    }
    for (const [key, l] of lingering) if (time - l.removedAt > REMOVED_POD_LINGER_MS) lingering.delete(key);

    // A step without a Summary reuses the previous one (docs/replay-format.md).
    const stepSummary = obj(parsed["summary"]);
    if (parsed["summary"] !== undefined && stepSummary === undefined)
      throw new Error(`line ${n}: summary: a path to a Summary file is not supported here`);
    summary = stepSummary ?? summary;
    const nodeStats = obj(summary?.["node"]) ?? {};
    const node =
      options.node ??
      str(obj(obj(header["node"])?.["metadata"])?.["name"]) ??
      str(nodeStats["nodeName"]) ??
      "node";

    if (summary !== undefined) emitKubelet(out, node, time, nodeStats, summary, known, lingering, active);
    if (summary !== undefined) emitNodeExporter(out, options.nodeExporterInstance ?? node, time, nodeStats);
    for (const pod of active.values()) emitKubeStateMetrics(out, node, time, pod, pod.phase);
    for (const { pod } of lingering.values())
      if (!active.has(pod.key)) emitKubeStateMetrics(out, node, time, pod, "Failed");
  }
  if (header === undefined) throw new Error("the trace is empty: no header line");
  return out.render();
}

function emitKubelet(
  out: Families,
  node: string,
  time: number,
  nodeStats: Json,
  summary: Json,
  known: ReadonlyMap<string, PodInfo>,
  lingering: ReadonlyMap<string, unknown>,
  active: ReadonlyMap<string, PodInfo>,
): void {
  const base: Labels = [
    ["job", "kubelet"],
    ["metrics_path", "/metrics/cadvisor"],
    ["node", node],
    ["instance", KUBELET_INSTANCE],
  ];
  const memory = obj(nodeStats["memory"]) ?? {};
  // The kubelet's memory capacity: available is capacity minus the working set.
  out.add(
    "machine_memory_bytes",
    base,
    add(value(memory["availableBytes"]), value(memory["workingSetBytes"])),
    time,
  );
  const root: Labels = [...base, ["id", "/"]];
  out.add("container_memory_working_set_bytes", root, value(memory["workingSetBytes"]), time);
  out.add("container_memory_usage_bytes", root, value(memory["usageBytes"]), time);

  const systemContainers = Array.isArray(nodeStats["systemContainers"]) ? nodeStats["systemContainers"] : [];
  const podsCgroup = obj(systemContainers.map(obj).find((c) => c?.["name"] === "pods")?.["memory"]);
  if (podsCgroup !== undefined) {
    const labels: Labels = [...base, ["id", "/kubepods.slice"]];
    out.add("container_memory_working_set_bytes", labels, value(podsCgroup["workingSetBytes"]), time);
    out.add("container_memory_usage_bytes", labels, value(podsCgroup["usageBytes"]), time);
    out.add(
      "container_spec_memory_limit_bytes",
      labels,
      add(value(podsCgroup["availableBytes"]), value(podsCgroup["workingSetBytes"])),
      time,
    );
  }

  const pods = Array.isArray(summary["pods"]) ? summary["pods"] : [];
  for (const podStats of pods.map(obj)) {
    const ref = obj(podStats?.["podRef"]);
    if (podStats === undefined || ref === undefined) continue;
    const namespace = str(ref["namespace"]) ?? "default";
    const name = str(ref["name"]) ?? "";
    const key = `${namespace}/${name}`;
    // A removed pod's cgroup is gone at once, whatever a stale Summary still says.
    if (lingering.has(key) && !active.has(key)) continue;
    const pod = known.get(key);
    const uid = str(ref["uid"]) ?? pod?.uid ?? key;
    const id = podCgroup(uid, pod?.uid === uid ? pod.qosClass : undefined);
    const labels: Labels = [...base, ["id", id], ["namespace", namespace], ["pod", name]];
    const podMemory = obj(podStats["memory"]) ?? {};
    out.add("container_memory_working_set_bytes", labels, value(podMemory["workingSetBytes"]), time);
    out.add("container_memory_usage_bytes", labels, value(podMemory["usageBytes"]), time);
    const containers = Array.isArray(podStats["containers"]) ? podStats["containers"] : [];
    for (const c of containers.map(obj)) {
      const container = str(c?.["name"]);
      if (c === undefined || container === undefined) continue;
      out.add(
        "container_memory_working_set_bytes",
        [
          ...base,
          ["id", `${id}/cri-containerd-${containerId(uid, container)}.scope`],
          ["namespace", namespace],
          ["pod", name],
          ["container", container],
          ["image", image(container)],
        ],
        value(obj(c["memory"])?.["workingSetBytes"]),
        time,
      );
    }
  }
}

function emitNodeExporter(out: Families, instance: string, time: number, nodeStats: Json): void {
  const base: Labels = [
    ["job", "node-exporter"],
    ["instance", instance],
  ];
  const filesystem = (fs: Json, where: { mountpoint: string; device: string }): void => {
    const labels: Labels = [
      ...base,
      ["device", where.device],
      ["fstype", "ext4"],
      ["mountpoint", where.mountpoint],
    ];
    out.add("node_filesystem_avail_bytes", labels, value(fs["availableBytes"]), time);
    out.add("node_filesystem_size_bytes", labels, value(fs["capacityBytes"]), time);
    out.add("node_filesystem_files_free", labels, value(fs["inodesFree"]), time);
    out.add("node_filesystem_files", labels, value(fs["inodes"]), time);
  };
  const nodefs = obj(nodeStats["fs"]);
  if (nodefs !== undefined) filesystem(nodefs, NODEFS);
  const imagefs = obj(obj(nodeStats["runtime"])?.["imageFs"]);
  // On a single-filesystem node the kubelet reports the root filesystem as imageFs too: one mount.
  if (imagefs !== undefined && (nodefs === undefined || fsDiffers(imagefs, nodefs)))
    filesystem(imagefs, IMAGEFS);
  const rlimit = obj(nodeStats["rlimit"]) ?? {};
  out.add("node_processes_pids", base, value(rlimit["curproc"]), time);
  out.add("node_processes_max_processes", base, value(rlimit["maxpid"]), time);
}

function emitKubeStateMetrics(out: Families, node: string, time: number, pod: PodInfo, phase: string): void {
  const base: Labels = [
    ["job", "kube-state-metrics"],
    ["instance", KSM_INSTANCE],
    ["namespace", pod.namespace],
    ["pod", pod.name],
    ["uid", pod.uid],
  ];
  out.add(
    "kube_pod_info",
    [
      ...base,
      ["node", node],
      ["priority_class", pod.priorityClassName],
      ["created_by_kind", "ReplicaSet"],
      ["host_ip", HOST_IP],
      ["pod_ip", ""],
    ],
    1,
    time,
  );
  for (const p of PHASES)
    out.add("kube_pod_status_phase", [...base, ["phase", p]], p === phase ? 1 : 0, time);
  if (pod.qosClass !== undefined)
    for (const q of QOS_CLASSES)
      out.add("kube_pod_status_qos_class", [...base, ["qos_class", q]], q === pod.qosClass ? 1 : 0, time);
  for (const c of pod.containers) {
    const container = str(c["name"]);
    if (container === undefined) continue;
    out.add(
      "kube_pod_container_info",
      [
        ...base,
        ["container", container],
        ["image", image(container)],
        ["container_id", `containerd://${containerId(pod.uid, container)}`],
      ],
      1,
      time,
    );
    const resources = obj(c["resources"]) ?? {};
    for (const [field, family] of [
      ["requests", "kube_pod_container_resource_requests"],
      ["limits", "kube_pod_container_resource_limits"],
    ] as const) {
      for (const [resource, quantity] of Object.entries(obj(resources[field]) ?? {})) {
        const ksm = KSM_RESOURCES[resource];
        if (ksm === undefined) continue;
        out.add(
          family,
          [...base, ["container", container], ["node", node], ["resource", ksm.resource], ["unit", ksm.unit]],
          resourceValue(resource, quantity),
          time,
        );
      }
    }
  }
}

function parseArgs(argv: readonly string[]): { trace: string; options: TraceToOpenMetricsOptions } {
  let trace: string | undefined;
  let node: string | undefined;
  let instance: string | undefined;
  const omit: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg}: a value is required`);
      return v;
    };
    if (arg === "--node") node = next();
    else if (arg === "--omit") omit.push(next());
    else if (arg === "--node-exporter-instance") instance = next();
    else if (trace === undefined && arg !== undefined) trace = arg;
    else throw new Error(`unexpected argument ${arg}`);
  }
  if (trace === undefined)
    throw new Error("usage: trace-to-openmetrics TRACE.jsonl [--node NAME] [--omit METRIC]...");
  return {
    trace,
    options: {
      ...(node === undefined ? {} : { node }),
      ...(instance === undefined ? {} : { nodeExporterInstance: instance }),
      omit,
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { trace, options } = parseArgs(process.argv.slice(2));
  process.stdout.write(traceToOpenMetrics(readFileSync(trace, "utf8"), options));
}
