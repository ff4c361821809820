/**
 * A Summary made of two sources of different age: the kubelet's Summary API sample (disk, inodes,
 * PIDs, volumes, logs, as of its own times) with every memory figure replaced by what was just
 * read from the kubelet's cgroups (as of the read). Each figure keeps the time it was measured at,
 * as the kubelet's own stats do, so the engine judges the freshness of each signal from its own
 * time: a memory wake never waits for the Summary API, and a disk figure is never passed off as new.
 *
 * Pods are matched by the UID the kubelet knows them by (the pod cgroup's name carries it, and so
 * does the kubelet's Summary entry): a mirror pod's static pod by the hash the mirror carries
 * (kubelet-pod-uid.ts). Every entry of a pod the API shows is named as the API names it (its UID
 * the API's), whatever UID the kubelet's entry had, so the engine, /status and explain see one pod.
 * Containers are matched by container id (the container cgroup's name, and
 * `containerStatuses[].containerID` in the API). A pod the Summary does not list yet (it started
 * after the sample) gets an entry with its memory alone. A pod the Summary lists but whose cgroup
 * is not found keeps the Summary's figures. Pure.
 */
import { isRawObject, type RawObject } from "../../core/raw/raw-object.js";
import { kubeletUidOf, kubeletUidOfMetadata, PodUids, type PodUidPair } from "./kubelet-pod-uid.js";
import type { MemoryStatsJson, NodeLocalMemory, PodMemory } from "./node-memory-port.js";

/** What the merge needs of an API pod: its identity and its containers' names by container id. */
export interface ApiPodInfo extends PodUidPair {
  /** The API's UID (a mirror pod's own): what evictd shows, ranks and evicts the pod by. */
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly containerNames: ReadonlyMap<string, string>;
}

/** The id part of a `containerStatuses[].containerID` (`containerd://<id>`, `cri-o://<id>`, `docker://<id>`). */
export function containerIdOfStatus(containerID: string): string | undefined {
  return /^[a-z0-9-]+:\/\/([0-9a-f]{64})$/.exec(containerID)?.[1];
}

/**
 * A raw v1 Pod's identity (the kubelet's UID beside the API's where they differ: a mirror pod) and
 * container ids → names (regular, init and ephemeral containers).
 */
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
  const kubeletUid = kubeletUidOfMetadata(meta, uid);
  return {
    uid,
    ...(kubeletUid !== undefined ? { kubeletUid } : {}),
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
 * `summary` with the node's, kubepods' and each pod's memory from `local` (pods by the kubelet's
 * UID). `pods` are the API's pods on the node; a cgroup of a pod the API does not show (a pod
 * already deleted, a static pod whose mirror is not there yet) adds nothing.
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
 * `summary` with the pods in `podsByUid` (by the kubelet's UID) given those figures (their
 * containers matched by id), the other pods' entries left as they are (the same objects). A pod
 * the Summary does not list yet, and the API knows, gets an entry. An entry the kubelet wrote
 * under a static pod's UID is named by its mirror's (a new object once, the same ones after).
 */
export function withPodMemory(
  summary: unknown,
  podsByUid: ReadonlyMap<string, PodMemory>,
  pods: readonly ApiPodInfo[],
): RawObject {
  const base: RawObject = isRawObject(summary) ? summary : {};
  const uids = new PodUids(pods);
  const namesOf = (kubeletUid: string): Map<string, MemoryStatsJson> => {
    const byName = new Map<string, MemoryStatsJson>();
    const read = podsByUid.get(kubeletUid);
    const names = uids.byKubeletUid(kubeletUid)?.containerNames;
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
    const ref = p["podRef"];
    const uid = ref["uid"];
    if (typeof uid !== "string") return p;
    const pod = uids.byEitherUid(uid);
    const kubeletUid = pod === undefined ? uid : kubeletUidOf(pod);
    listed.add(kubeletUid);
    // The kubelet's entry of a static pod, named as the API names its mirror.
    const entry = pod !== undefined && pod.uid !== uid ? { ...p, podRef: { ...ref, uid: pod.uid } } : p;
    const read = podsByUid.get(kubeletUid);
    if (read === undefined) return entry;
    return {
      ...entry,
      memory: read.memory,
      containers: containersWithMemory(p["containers"], namesOf(kubeletUid)),
    };
  });
  for (const [kubeletUid, read] of podsByUid) {
    const pod = uids.byKubeletUid(kubeletUid);
    if (listed.has(kubeletUid) || pod === undefined) continue;
    entries.push({
      podRef: { name: pod.name, namespace: pod.namespace, uid: pod.uid },
      containers: containersWithMemory([], namesOf(kubeletUid)),
      memory: read.memory,
    });
  }
  return { ...base, pods: entries };
}
