/**
 * A Summary made of two sources of different age: the kubelet's Summary API sample (disk, inodes,
 * PIDs, volumes, logs, as of its own times) with every memory figure replaced by what was just
 * read from the kubelet's cgroups (as of the read). Each figure keeps the time it was measured at,
 * as the kubelet's own stats do, so the engine judges the freshness of each signal from its own
 * time: a memory wake never waits for the Summary API, and a disk figure is never passed off as new.
 *
 * Pods are matched by UID (the pod cgroup's name carries it); containers by container id (the
 * container cgroup's name, and `containerStatuses[].containerID` in the API). A pod the Summary
 * does not list yet (it started after the sample) gets an entry with its memory alone. A pod the
 * Summary lists but whose cgroup is not found keeps the Summary's figures. Pure.
 */
import { isRawObject, type RawObject } from "../../core/raw/raw-object.js";
import type { MemoryStatsJson, NodeLocalMemory, PodMemory } from "./node-memory-port.js";

/** What the merge needs of an API pod: its identity and its containers' names by container id. */
export interface ApiPodInfo {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly containerNames: ReadonlyMap<string, string>;
}

/** The id part of a `containerStatuses[].containerID` (`containerd://<id>`, `cri-o://<id>`, `docker://<id>`). */
export function containerIdOfStatus(containerID: string): string | undefined {
  return /^[a-z0-9-]+:\/\/([0-9a-f]{64})$/.exec(containerID)?.[1];
}

/** A raw v1 Pod's identity and container ids → names (regular, init and ephemeral containers). */
export function apiPodInfo(raw: unknown): ApiPodInfo | undefined {
  if (!isRawObject(raw)) return undefined;
  const meta = raw["metadata"];
  if (!isRawObject(meta)) return undefined;
  const { uid, name, namespace } = meta;
  if (typeof uid !== "string" || typeof name !== "string") return undefined;
  const containerNames = new Map<string, string>();
  const status = raw["status"];
  if (isRawObject(status)) {
    for (const field of ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"]) {
      const list = status[field];
      if (!Array.isArray(list)) continue;
      for (const s of list) {
        if (!isRawObject(s) || typeof s["name"] !== "string" || typeof s["containerID"] !== "string")
          continue;
        const id = containerIdOfStatus(s["containerID"]);
        if (id !== undefined) containerNames.set(id, s["name"]);
      }
    }
  }
  return {
    uid,
    name,
    namespace: typeof namespace === "string" && namespace !== "" ? namespace : "default",
    containerNames,
  };
}

function withMemory(entry: RawObject, memory: MemoryStatsJson): RawObject {
  return { ...entry, memory };
}

/** The containers of a pod entry, each with its freshly read memory where its id is known. */
function containersWithMemory(containers: unknown, byName: ReadonlyMap<string, MemoryStatsJson>): unknown[] {
  const list = Array.isArray(containers) ? containers : [];
  const seen = new Set<string>();
  const out = list.map((c: unknown) => {
    if (!isRawObject(c) || typeof c["name"] !== "string") return c;
    seen.add(c["name"]);
    const memory = byName.get(c["name"]);
    return memory === undefined ? c : withMemory(c, memory);
  });
  for (const [name, memory] of byName) if (!seen.has(name)) out.push({ name, memory });
  return out;
}

/**
 * `summary` with the node's, kubepods' and each pod's memory from `local`. `pods` are the API's
 * pods on the node; a cgroup whose UID the API does not know (a static pod's, a pod already
 * deleted) adds nothing.
 */
export function withNodeLocalMemory(
  summary: unknown,
  local: NodeLocalMemory,
  pods: readonly ApiPodInfo[],
): RawObject {
  const base: RawObject = isRawObject(summary) ? summary : {};
  const node: RawObject = isRawObject(base["node"]) ? base["node"] : {};
  const systemContainers = Array.isArray(node["systemContainers"]) ? node["systemContainers"] : [];
  let hasPods = false;
  const containers: unknown[] = systemContainers.map((c: unknown) => {
    if (!isRawObject(c) || c["name"] !== "pods") return c;
    hasPods = true;
    return withMemory(c, local.pods);
  });
  if (!hasPods) containers.push({ name: "pods", memory: local.pods });
  return withPodMemory(
    { ...base, node: { ...node, memory: local.node, systemContainers: containers } },
    local.podsByUid,
    pods,
  );
}

/**
 * `summary` with the pods in `podsByUid` given those figures (their containers matched by id), the
 * other pods' entries left as they are (the same objects). A pod the Summary does not list yet,
 * and the API knows, gets an entry.
 */
export function withPodMemory(
  summary: unknown,
  podsByUid: ReadonlyMap<string, PodMemory>,
  pods: readonly ApiPodInfo[],
): RawObject {
  const base: RawObject = isRawObject(summary) ? summary : {};
  const info = new Map(pods.map((p) => [p.uid, p]));
  const namesOf = (uid: string): Map<string, MemoryStatsJson> => {
    const byName = new Map<string, MemoryStatsJson>();
    const read = podsByUid.get(uid);
    const names = info.get(uid)?.containerNames;
    if (read === undefined || names === undefined) return byName;
    for (const [id, memory] of read.containersById) {
      const name = names.get(id);
      if (name !== undefined) byName.set(name, memory);
    }
    return byName;
  };
  const listed = new Set<string>();
  const entries: unknown[] = (Array.isArray(base["pods"]) ? base["pods"] : []).map((p: unknown) => {
    if (!isRawObject(p) || !isRawObject(p["podRef"])) return p;
    const uid = p["podRef"]["uid"];
    if (typeof uid !== "string") return p;
    listed.add(uid);
    const read = podsByUid.get(uid);
    if (read === undefined) return p;
    return { ...p, memory: read.memory, containers: containersWithMemory(p["containers"], namesOf(uid)) };
  });
  for (const [uid, read] of podsByUid) {
    const pod = info.get(uid);
    if (listed.has(uid) || pod === undefined) continue;
    entries.push({
      podRef: { name: pod.name, namespace: pod.namespace, uid },
      containers: containersWithMemory([], namesOf(uid)),
      memory: read.memory,
    });
  }
  return { ...base, pods: entries };
}
