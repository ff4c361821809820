/**
 * Turns the raw series of one stretch of time into the samples `evictd record` would have taken:
 * per step, the node's Summary (as the kubelet computes it, from the same cAdvisor figures) and the
 * pods active on the node (kube-state-metrics' view: placed there and neither Failed nor Succeeded).
 * Each figure is the latest sample scraped at or before the step, within the lookback; a figure
 * without one is left out of the Summary, never filled in.
 */
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";
import type { PrometheusSeries } from "./prometheus-port.js";
import { podFromMetrics, type PodMetrics } from "./pod-from-metrics.js";
import { SampleTrack, type TimedValue } from "./sample-track.js";

/** What each query's series are, for {@link NodeSampleBuilder.add}. */
export type SeriesKind =
  | "machineMemory"
  | "workingSet"
  | "usage"
  | "podsLimit"
  | "fsAvail"
  | "fsSize"
  | "fsFilesFree"
  | "fsFiles"
  | "pids"
  | "pidMax"
  | "podInfo"
  | "phase"
  | "qos"
  | "requests"
  | "limits"
  | "containerInfo";

export interface NodeSampleBuilderOptions {
  readonly node: string;
  readonly lookbackMs: number;
  readonly nodefsMountpoint: string;
  readonly imagefsMountpoint: string;
  readonly priorityClasses: ReadonlyMap<string, number>;
}

export interface ImportedSample {
  readonly now: number;
  readonly summary: Record<string, unknown>;
  readonly activePods: readonly unknown[];
}

// A cgroup without a limit: cAdvisor exports 0 for it; the kernel's own figure is the largest
// page-aligned int64.
const NO_LIMIT = 2 ** 62;
const POD_UID = /pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})/i;
/** The pod's own cgroup, not one below it (a container's, or the sandbox's pause container). */
const POD_CGROUP_END = /pod[0-9a-f_-]{36}(\.slice)?$/i;
const PODS_CGROUP = /^\/kubepods(\.slice)?$/;

function podUidOf(id: string | undefined): string | undefined {
  const m = id === undefined ? null : POD_UID.exec(id);
  return m?.[1]?.replaceAll("_", "-");
}

interface PodCgroup {
  readonly namespace: string;
  readonly name: string;
  readonly workingSet: SampleTrack;
  readonly usage: SampleTrack;
  /** container name → working set. */
  readonly containers: Map<string, SampleTrack>;
}

interface KsmPod {
  namespace: string;
  name: string;
  priorityClass: string;
  createdByKind: string;
  readonly info: SampleTrack;
  readonly phases: Map<string, SampleTrack>;
  readonly qos: Map<string, SampleTrack>;
  readonly containers: string[];
  readonly requests: Map<string, Map<string, SampleTrack>>;
  readonly limits: Map<string, Map<string, SampleTrack>>;
}

function trackIn<K>(map: Map<K, SampleTrack>, key: K): SampleTrack {
  let t = map.get(key);
  if (t === undefined) map.set(key, (t = new SampleTrack()));
  return t;
}

export class NodeSampleBuilder {
  readonly #o: NodeSampleBuilderOptions;
  readonly #node = new Map<string, SampleTrack>();
  readonly #fs = new Map<string, SampleTrack>();
  readonly #cgroups = new Map<string, PodCgroup>();
  readonly #ksm = new Map<string, KsmPod>();
  /** Pod objects already built, so every step of a pod shares one (and its requests are its first). */
  readonly #pods = new Map<string, Record<string, unknown>>();
  readonly #unknownClasses = new Set<string>();

  constructor(o: NodeSampleBuilderOptions) {
    this.#o = o;
  }

  /** Priority classes pods named that neither the built-ins nor --priority-class define. */
  get unknownPriorityClasses(): readonly string[] {
    return [...this.#unknownClasses].sort();
  }

  /** The pods kube_pod_info placed on the node at any time of the data added so far. */
  podNames(): string[] {
    return [...this.#ksm.values()].map((p) => p.name);
  }

  add(kind: SeriesKind, series: readonly PrometheusSeries[]): void {
    for (const s of series) this.#addOne(kind, s);
  }

  #cgroup(uid: string, labels: Readonly<Record<string, string>>): PodCgroup {
    let c = this.#cgroups.get(uid);
    if (c === undefined) {
      c = {
        namespace: labels["namespace"] ?? "",
        name: labels["pod"] ?? "",
        workingSet: new SampleTrack(),
        usage: new SampleTrack(),
        containers: new Map(),
      };
      this.#cgroups.set(uid, c);
    }
    return c;
  }

  #ksmPod(labels: Readonly<Record<string, string>>): KsmPod | undefined {
    const uid = labels["uid"];
    if (uid === undefined || uid === "") return undefined;
    let p = this.#ksm.get(uid);
    if (p === undefined) {
      p = {
        namespace: labels["namespace"] ?? "default",
        name: labels["pod"] ?? uid,
        priorityClass: "",
        createdByKind: "",
        info: new SampleTrack(),
        phases: new Map(),
        qos: new Map(),
        containers: [],
        requests: new Map(),
        limits: new Map(),
      };
      this.#ksm.set(uid, p);
    }
    return p;
  }

  #addOne(kind: SeriesKind, s: PrometheusSeries): void {
    const l = s.labels;
    const id = l["id"];
    switch (kind) {
      case "machineMemory":
        trackIn(this.#node, "machineMemory").add(s.samples);
        return;
      case "podsLimit":
        if (id !== undefined && PODS_CGROUP.test(id)) trackIn(this.#node, "podsLimit").add(s.samples);
        return;
      case "workingSet":
      case "usage": {
        const field = kind === "workingSet" ? "WorkingSet" : "Usage";
        if (id === "/") trackIn(this.#node, `node${field}`).add(s.samples);
        else if (id !== undefined && PODS_CGROUP.test(id)) trackIn(this.#node, `pods${field}`).add(s.samples);
        else {
          const uid = podUidOf(id);
          if (uid === undefined) return; // a QoS-level or system cgroup: not read by the kubelet's ranking
          const container = l["container"] ?? "";
          // The sandbox's pause container: `POD` (dockershim), or no name but an image (containerd).
          if (container === "POD") return;
          if (container === "" && (!POD_CGROUP_END.test(id ?? "") || (l["image"] ?? "") !== "")) return;
          const pod = this.#cgroup(uid, l);
          if (container !== "") {
            if (kind === "workingSet") trackIn(pod.containers, container).add(s.samples);
          } else (kind === "workingSet" ? pod.workingSet : pod.usage).add(s.samples);
        }
        return;
      }
      case "fsAvail":
      case "fsSize":
      case "fsFilesFree":
      case "fsFiles": {
        const mount = l["mountpoint"];
        if (mount === undefined) return;
        const field = { fsAvail: "avail", fsSize: "size", fsFilesFree: "filesFree", fsFiles: "files" }[kind];
        trackIn(this.#fs, `${field} ${mount}`).add(s.samples);
        return;
      }
      case "pids":
      case "pidMax":
        trackIn(this.#node, kind).add(s.samples);
        return;
      case "podInfo": {
        const p = this.#ksmPod(l);
        if (p === undefined) return;
        p.info.add(s.samples);
        p.namespace = l["namespace"] ?? p.namespace;
        p.name = l["pod"] ?? p.name;
        p.priorityClass = l["priority_class"] ?? p.priorityClass;
        p.createdByKind = l["created_by_kind"] ?? p.createdByKind;
        return;
      }
      case "phase":
      case "qos": {
        const p = this.#ksm.get(l["uid"] ?? "");
        const value = kind === "phase" ? l["phase"] : l["qos_class"];
        if (p === undefined || value === undefined) return;
        trackIn(kind === "phase" ? p.phases : p.qos, value).add(s.samples);
        return;
      }
      case "requests":
      case "limits":
      case "containerInfo": {
        const p = this.#ksm.get(l["uid"] ?? "");
        const container = l["container"];
        if (p === undefined || container === undefined) return;
        if (!p.containers.includes(container)) p.containers.push(container);
        if (kind === "containerInfo") return;
        const resource = l["resource"];
        if (resource === undefined) return;
        const byContainer = kind === "requests" ? p.requests : p.limits;
        let r = byContainer.get(container);
        if (r === undefined) byContainer.set(container, (r = new Map<string, SampleTrack>()));
        trackIn(r, resource).add(s.samples);
        return;
      }
    }
  }

  #nodeAt(key: string, t: number): TimedValue | undefined {
    return this.#node.get(key)?.at(t, this.#o.lookbackMs);
  }

  /** The label of the map's track whose value is 1 at `t` (kube-state-metrics' one-hot series). */
  #oneHot(tracks: Map<string, SampleTrack>, t: number): string | undefined {
    for (const [label, track] of tracks) if (track.at(t, this.#o.lookbackMs)?.value === 1) return label;
    return undefined;
  }

  #podObject(uid: string, p: KsmPod, t: number): Record<string, unknown> {
    let pod = this.#pods.get(uid);
    if (pod !== undefined) return pod;
    const values = (m: Map<string, Map<string, SampleTrack>>): Map<string, Map<string, number>> => {
      const out = new Map<string, Map<string, number>>();
      for (const [container, resources] of m) {
        const r = new Map<string, number>();
        for (const [resource, track] of resources) {
          const v = track.at(t, Number.POSITIVE_INFINITY);
          if (v !== undefined) r.set(resource, v.value);
        }
        out.set(container, r);
      }
      return out;
    };
    if (p.priorityClass !== "" && !this.#o.priorityClasses.has(p.priorityClass))
      this.#unknownClasses.add(p.priorityClass);
    const metrics: PodMetrics = {
      namespace: p.namespace,
      name: p.name,
      uid,
      priorityClass: p.priorityClass,
      createdByKind: p.createdByKind,
      phase: this.#oneHot(p.phases, t),
      qosClass: this.#oneHot(p.qos, t),
      containers: p.containers,
      requests: values(p.requests),
      limits: values(p.limits),
    };
    pod = podFromMetrics(metrics, this.#o.node, this.#o.priorityClasses);
    this.#pods.set(uid, pod);
    return pod;
  }

  /** Forgets the series (the pod objects built stay, so a pod keeps its object across chunks). */
  clearSeries(): void {
    this.#node.clear();
    this.#fs.clear();
    this.#cgroups.clear();
    this.#ksm.clear();
  }

  #fsAt(mount: string, t: number): Record<string, unknown> | undefined {
    const get = (field: string): TimedValue | undefined =>
      this.#fs.get(`${field} ${mount}`)?.at(t, this.#o.lookbackMs);
    const avail = get("avail");
    const size = get("size");
    if (avail === undefined && size === undefined) return undefined;
    const free = get("filesFree");
    const files = get("files");
    return {
      time: formatRfc3339Ms((avail ?? size)!.at),
      ...(avail !== undefined ? { availableBytes: avail.value } : {}),
      ...(size !== undefined ? { capacityBytes: size.value } : {}),
      ...(free !== undefined ? { inodesFree: free.value } : {}),
      ...(files !== undefined ? { inodes: files.value } : {}),
      ...(free !== undefined && files !== undefined ? { inodesUsed: files.value - free.value } : {}),
    };
  }

  /** The sample for step time `t`, or undefined when the node's memory has no sample there. */
  sampleAt(t: number): ImportedSample | undefined {
    const ws = this.#nodeAt("nodeWorkingSet", t);
    const machine = this.#nodeAt("machineMemory", t);
    if (ws === undefined || machine === undefined) return undefined;
    const usage = this.#nodeAt("nodeUsage", t);
    const node: Record<string, unknown> = {
      nodeName: this.#o.node,
      memory: {
        time: formatRfc3339Ms(ws.at),
        availableBytes: Math.max(0, machine.value - ws.value),
        workingSetBytes: ws.value,
        ...(usage !== undefined ? { usageBytes: usage.value } : {}),
      },
    };
    const podsWs = this.#nodeAt("podsWorkingSet", t);
    const podsLimit = this.#nodeAt("podsLimit", t);
    if (
      podsWs !== undefined &&
      podsLimit !== undefined &&
      podsLimit.value > 0 &&
      podsLimit.value < NO_LIMIT
    ) {
      const podsUsage = this.#nodeAt("podsUsage", t);
      node["systemContainers"] = [
        {
          name: "pods",
          memory: {
            time: formatRfc3339Ms(podsWs.at),
            availableBytes: Math.max(0, podsLimit.value - podsWs.value),
            workingSetBytes: podsWs.value,
            ...(podsUsage !== undefined ? { usageBytes: podsUsage.value } : {}),
          },
        },
      ];
    }
    const nodefs = this.#fsAt(this.#o.nodefsMountpoint, t);
    if (nodefs !== undefined) node["fs"] = nodefs;
    // A runtime directory node-exporter lists no mount for lives on the filesystem above it.
    const imagefs = this.#fsAt(this.#o.imagefsMountpoint, t) ?? nodefs;
    if (imagefs !== undefined) node["runtime"] = { imageFs: imagefs };
    const pids = this.#nodeAt("pids", t);
    const pidMax = this.#nodeAt("pidMax", t);
    if (pids !== undefined && pidMax !== undefined)
      node["rlimit"] = { time: formatRfc3339Ms(pids.at), maxpid: pidMax.value, curproc: pids.value };

    const pods: Record<string, unknown>[] = [];
    for (const [uid, c] of this.#cgroups) {
      const pws = c.workingSet.at(t, this.#o.lookbackMs);
      if (pws === undefined) continue;
      const pusage = c.usage.at(t, this.#o.lookbackMs);
      const containers: Record<string, unknown>[] = [];
      for (const [name, track] of c.containers) {
        const v = track.at(t, this.#o.lookbackMs);
        if (v !== undefined) containers.push({ name, memory: { workingSetBytes: v.value } });
      }
      const ksm = this.#ksm.get(uid);
      pods.push({
        podRef: { name: c.name || (ksm?.name ?? uid), namespace: c.namespace || (ksm?.namespace ?? ""), uid },
        memory: { workingSetBytes: pws.value, ...(pusage !== undefined ? { usageBytes: pusage.value } : {}) },
        containers,
      });
    }

    const activePods: unknown[] = [];
    for (const [uid, p] of this.#ksm) {
      if (p.info.at(t, this.#o.lookbackMs)?.value !== 1) continue;
      const phase = this.#oneHot(p.phases, t);
      // The kubelet's active pods: not yet terminated.
      if (phase === "Failed" || phase === "Succeeded") continue;
      activePods.push(this.#podObject(uid, p, t));
    }
    return { now: t, summary: { node, pods }, activePods };
  }
}
