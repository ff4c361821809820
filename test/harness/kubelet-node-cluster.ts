/**
 * The API side of a kubelet-shaped node (kubelet-node.ts): the fake API server's data for it, made
 * from the real payloads in test/fixtures/real-data: a configz (kubeletconfig-1.yaml with the
 * node's cgroup driver and thresholds), a Summary (summary-1.json's node, renamed, with no pods:
 * the disk figures `watch --stats cgroups` still takes from the Summary API), and v1 Pods built from
 * a real Running pod of pods-1.json, with the UIDs and container ids of the cgroups.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify as stringifyYaml, parse as parseYaml } from "yaml";
import type { FakePod } from "./fake-api-server/fake-api-server.js";
import { containerId, type KubeletDriver, type KubeletNode, type Qos } from "./kubelet-node.js";
import { REAL_DATA } from "../support/repo-paths.js";

export interface ApiPodSpec {
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  readonly qos: Qos;
  readonly containers: readonly { readonly name: string; readonly id: string }[];
  /** system-node-critical (2000001000) makes it a critical pod. */
  readonly priorityClassName?: string;
  readonly priority?: number;
  /** Memory request (and limit for Guaranteed); default 16Mi. */
  readonly memory?: string;
  readonly terminationGracePeriodSeconds?: number;
  /**
   * The pod is the mirror of a static pod whose config hash this is (the kubelet's UID of it, what
   * its cgroup is named after; see {@link staticPodHash}): annotated as the kubelet writes a
   * mirror (config.hash, config.mirror, config.seen, config.source "file") and owned by the Node,
   * while `uid` is the mirror's own, the API server's.
   */
  readonly mirrorOf?: string;
}

/** A static pod's config hash as the kubelet makes them: an md5, 32 hex digits (pkg/kubelet/config). */
export function staticPodHash(): string {
  return randomBytes(16).toString("hex");
}

/** The UID the kubelet knows an API pod by: a mirror's config hash, else its own. */
function kubeletUidOf(pod: FakePod): string {
  const annotations = pod.metadata["annotations"] as Record<string, string> | undefined;
  return annotations?.["kubernetes.io/config.mirror"] ?? pod.metadata.uid;
}

const TEMPLATE = ((): FakePod => {
  const list = JSON.parse(readFileSync(path.join(REAL_DATA, "pods-1.json"), "utf8")) as { items: FakePod[] };
  const pod = list.items.find((p) => p.metadata.name === "e2e-statefulset-0");
  if (pod === undefined) throw new Error("pods-1.json has no e2e-statefulset-0");
  return pod;
})();

/** A Running v1 Pod on `nodeName` with the given identity, QoS and container ids. */
export function apiPod(nodeName: string, spec: ApiPodSpec): FakePod {
  const pod = structuredClone(TEMPLATE) as FakePod & {
    metadata: Record<string, unknown>;
    spec: Record<string, unknown> & { containers: Record<string, unknown>[] };
    status: Record<string, unknown> & { containerStatuses?: Record<string, unknown>[] };
  };
  const memory = spec.memory ?? "16Mi";
  const resources =
    spec.qos === "Guaranteed"
      ? { requests: { cpu: "100m", memory }, limits: { cpu: "100m", memory } }
      : spec.qos === "Burstable"
        ? { requests: { memory } }
        : {};
  const containerTemplate = pod.spec.containers[0] ?? {};
  const statusTemplate = pod.status.containerStatuses?.[0] ?? {};
  pod.metadata = {
    name: spec.name,
    namespace: spec.namespace ?? "default",
    uid: spec.uid,
    resourceVersion: "1",
    creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
  pod.spec = {
    ...pod.spec,
    nodeName,
    containers: spec.containers.map((c) => ({ ...containerTemplate, name: c.name, resources })),
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
  };
  delete pod.spec["priorityClassName"];
  delete pod.spec["priority"];
  if (spec.priorityClassName !== undefined) pod.spec["priorityClassName"] = spec.priorityClassName;
  if (spec.priority !== undefined) pod.spec["priority"] = spec.priority;
  if (spec.mirrorOf !== undefined) {
    pod.metadata["annotations"] = {
      "kubernetes.io/config.hash": spec.mirrorOf,
      "kubernetes.io/config.mirror": spec.mirrorOf,
      "kubernetes.io/config.seen": new Date().toISOString().replace("Z", "000000Z"),
      "kubernetes.io/config.source": "file",
    };
    pod.metadata["ownerReferences"] = [
      { apiVersion: "v1", kind: "Node", name: nodeName, uid: "0", controller: true },
    ];
  }
  pod.status = {
    ...pod.status,
    phase: "Running",
    qosClass: spec.qos,
    containerStatuses: spec.containers.map((c) => ({
      ...statusTemplate,
      name: c.name,
      containerID: `containerd://${c.id}`,
      ready: true,
    })),
  };
  return pod;
}

export interface ClusterDataSpec {
  readonly nodeName: string;
  readonly driver: KubeletDriver;
  /** evictionHard as configz shows it; default memory.available 100Mi only. */
  readonly evictionHard?: Readonly<Record<string, string>>;
  readonly pods: readonly FakePod[];
  /** Names of pods the Summary does not list yet (started after the kubelet's last housekeeping). */
  readonly unlisted?: readonly string[];
}

/** Writes summary.json, pods.json and kubeletconfig.yaml for `startFakeApiServer({ dataDir })`. */
export function writeClusterData(dir: string, spec: ClusterDataSpec): void {
  const summary = JSON.parse(readFileSync(path.join(REAL_DATA, "summary-1.json"), "utf8")) as {
    node: Record<string, unknown>;
    pods: unknown[];
  };
  summary.node["nodeName"] = spec.nodeName;
  // A kubelet's Summary lists every pod it runs, with figures as of its last housekeeping: here the
  // pods known when the data is written, each entry a real one (summary-1.json's first) renamed, its
  // figures stale on purpose (evictd reads memory from the cgroups; containers are matched by name,
  // so none are carried over). A pod started later (a ramp) is not listed, as between two of the
  // kubelet's housekeepings.
  // Each under the UID the kubelet knows it by: a mirror pod's static pod under its config hash.
  const template = summary.pods[0] as Record<string, unknown>;
  summary.pods = spec.pods
    .filter((p) => !(spec.unlisted ?? []).includes(p.metadata.name))
    .map((p) => ({
      ...structuredClone(template),
      podRef: { name: p.metadata.name, namespace: p.metadata.namespace, uid: kubeletUidOf(p) },
      containers: [],
    }));
  writeFileSync(path.join(dir, "summary.json"), JSON.stringify(summary));
  writeFileSync(
    path.join(dir, "pods.json"),
    JSON.stringify({ kind: "PodList", apiVersion: "v1", items: spec.pods }),
  );
  const config = parseYaml(readFileSync(path.join(REAL_DATA, "kubeletconfig-1.yaml"), "utf8")) as Record<
    string,
    unknown
  >;
  config["cgroupDriver"] = spec.driver;
  config["cgroupRoot"] = "/";
  config["evictionHard"] = spec.evictionHard ?? { "memory.available": "100Mi" };
  config["evictionPressureTransitionPeriod"] = "0s";
  delete config["evictionMinimumReclaim"];
  writeFileSync(path.join(dir, "kubeletconfig.yaml"), stringifyYaml(config));
}

/** The fake API server options for that data. */
export function clusterDataOptions(dir: string, nodeName: string) {
  return {
    dataDir: dir,
    nodeName,
    summaryFile: "summary.json",
    podsFile: "pods.json",
    kubeletConfigFile: "kubeletconfig.yaml",
    deletion: "hold" as const,
  };
}

/**
 * The residents of the reaction node, each a `sleep` in its own pod and container cgroup, and their
 * API pods: Guaranteed, BestEffort and a system-node-critical one, then `idle` more pods (a third
 * each BestEffort, Burstable, Guaranteed) for a real-sized node.
 */
export function startResidents(node: KubeletNode, nodeName: string, idle = 0): FakePod[] {
  const residents: ApiPodSpec[] = [
    { name: "guaranteed", qos: "Guaranteed", uid: "", containers: [] },
    { name: "besteffort", qos: "BestEffort", uid: "", containers: [] },
    {
      name: "critical",
      qos: "Burstable",
      uid: "",
      containers: [],
      namespace: "kube-system",
      priorityClassName: "system-node-critical",
      priority: 2000001000,
    },
  ];
  const tiers: readonly Qos[] = ["BestEffort", "Burstable", "Guaranteed"];
  for (let i = 0; i < idle; i++)
    residents.push({ name: `idle-${i}`, qos: tiers[i % 3] ?? "BestEffort", uid: "", containers: [] });
  return residents.map((r) => {
    const id = containerId();
    const pod = node.addPod({
      qos: r.qos,
      containers: [{ id, argv: ["/bin/sh", "-c", "exec sleep 86400"] }],
    });
    return apiPod(nodeName, { ...r, uid: pod.uid, containers: [{ name: "main", id }] });
  });
}
