/**
 * What the fake API server serves: one node (its v1 Node, Summary text and configz), the cluster's
 * pods with resourceVersions and a change history for watches, and the events written to it. Pure
 * state; the HTTP side is in fake-api-server.ts.
 */
import { randomUUID } from "node:crypto";

/** A v1 Pod as the fake stores it: plain JSON with the fields the fake reads typed. */
export interface FakePod {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion?: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    [key: string]: unknown;
  };
  spec: { nodeName?: string; [key: string]: unknown };
  status?: { phase?: string; conditions?: Record<string, unknown>[]; [key: string]: unknown };
  [key: string]: unknown;
}

/** One line of a watch stream. */
export interface WatchLine {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  readonly object: unknown;
}

/** An open watch as the state sees it. */
export interface WatchSink {
  /** Only pods with this spec.nodeName (the watch's fieldSelector), or all. */
  readonly nodeName: string | undefined;
  send(line: WatchLine): void;
  end(): void;
}

interface LoggedChange {
  readonly rv: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly pod: FakePod;
}

/** The cluster behind the fake server. */
export class FakeClusterState {
  readonly nodeName: string;
  node: Record<string, unknown>;
  summaryText: string;
  configzText: string;
  readonly events: Record<string, unknown>[] = [];
  readonly #pods = new Map<string, FakePod>();
  readonly #log: LoggedChange[] = [];
  readonly #watchers = new Set<WatchSink>();
  readonly #watcherWaits: { count: number; resolve: () => void }[] = [];
  #rv: number;
  #oldestWatchable = 0;

  constructor(
    nodeName: string,
    node: Record<string, unknown>,
    summaryText: string,
    configzText: string,
    pods: readonly FakePod[],
  ) {
    this.nodeName = nodeName;
    this.node = node;
    this.summaryText = summaryText;
    this.configzText = configzText;
    let highest = 1000;
    for (const pod of pods) highest = Math.max(highest, Number(pod.metadata.resourceVersion ?? 0) || 0);
    this.#rv = highest + 1;
    for (const pod of pods)
      this.#pods.set(key(pod.metadata.namespace, pod.metadata.name), structuredClone(pod));
  }

  /** The latest resourceVersion, as a list reports it. */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Copies of the pods, optionally only those bound to `nodeName`. */
  pods(nodeName?: string): FakePod[] {
    return [...this.#pods.values()]
      .filter((p) => nodeName === undefined || p.spec.nodeName === nodeName)
      .map((p) => structuredClone(p));
  }

  /** A copy of one pod, or undefined. */
  pod(namespace: string, name: string): FakePod | undefined {
    const pod = this.#pods.get(key(namespace, name));
    return pod === undefined ? undefined : structuredClone(pod);
  }

  /** Stores a new pod (uid and resourceVersion assigned when missing) and tells the watches. */
  addPod(pod: FakePod): FakePod {
    const stored = structuredClone(pod);
    stored.metadata.uid ||= randomUUID();
    this.#pods.set(key(stored.metadata.namespace, stored.metadata.name), stored);
    return this.#record("ADDED", stored);
  }

  /** Changes a pod in place (through `mutate`) and tells the watches; throws if there is no such pod. */
  modifyPod(namespace: string, name: string, mutate: (pod: FakePod) => void): FakePod {
    const pod = this.#pods.get(key(namespace, name));
    if (pod === undefined) throw new Error(`fake: no pod ${namespace}/${name}`);
    mutate(pod);
    return this.#record("MODIFIED", pod);
  }

  /** Removes a pod and tells the watches; undefined if it was not there. */
  removePod(namespace: string, name: string): FakePod | undefined {
    const pod = this.#pods.get(key(namespace, name));
    if (pod === undefined) return undefined;
    this.#pods.delete(key(namespace, name));
    return this.#record("DELETED", pod);
  }

  /** Forgets the history: watches from any older resourceVersion get 410 Gone. */
  compactHistory(): void {
    this.#oldestWatchable = this.#rv;
    this.#log.length = 0;
  }

  /**
   * What a watch from `resourceVersion` must replay first: the changes after it, ADDED for every pod
   * when it is "" or "0", or "expired" when it is older than the kept history.
   */
  replayFrom(resourceVersion: string, nodeName: string | undefined): WatchLine[] | "expired" {
    if (resourceVersion === "" || resourceVersion === "0") {
      return this.pods(nodeName).map((pod) => ({ type: "ADDED", object: pod }));
    }
    const rv = Number(resourceVersion);
    if (!Number.isInteger(rv) || rv < this.#oldestWatchable) return "expired";
    return this.#log
      .filter((c) => c.rv > rv && (nodeName === undefined || c.pod.spec.nodeName === nodeName))
      .map((c) => ({ type: c.type, object: structuredClone(c.pod) }));
  }

  /** The 410 Status a watch from a too-old resourceVersion gets (apiserver: "too old resource version"). */
  expiredStatus(resourceVersion: string): Record<string, unknown> {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `too old resource version: ${resourceVersion} (${this.#rv})`,
      reason: "Expired",
      code: 410,
    };
  }

  subscribe(sink: WatchSink): void {
    this.#watchers.add(sink);
    for (const wait of [...this.#watcherWaits]) {
      if (this.#watchers.size >= wait.count) {
        this.#watcherWaits.splice(this.#watcherWaits.indexOf(wait), 1);
        wait.resolve();
      }
    }
  }

  unsubscribe(sink: WatchSink): void {
    this.#watchers.delete(sink);
  }

  /** How many watches are open. */
  get watchCount(): number {
    return this.#watchers.size;
  }

  /** Resolves once at least `count` watches are open. */
  waitForWatchers(count: number): Promise<void> {
    if (this.#watchers.size >= count) return Promise.resolve();
    return new Promise((resolve) => this.#watcherWaits.push({ count, resolve }));
  }

  /** Sends a BOOKMARK with the current resourceVersion to every open watch. */
  bookmark(): void {
    const object = { kind: "Pod", apiVersion: "v1", metadata: { resourceVersion: this.resourceVersion } };
    for (const sink of this.#watchers) sink.send({ type: "BOOKMARK", object });
  }

  /** Sends an ERROR 410 to every open watch and ends them. */
  expireWatches(): void {
    for (const sink of [...this.#watchers]) {
      sink.send({ type: "ERROR", object: this.expiredStatus(String(this.#rv - 1)) });
      sink.end();
    }
  }

  /** Ends every open watch cleanly (as the server does at timeoutSeconds). */
  endWatches(): void {
    for (const sink of [...this.#watchers]) sink.end();
  }

  #record(type: LoggedChange["type"], pod: FakePod): FakePod {
    this.#rv += 1;
    pod.metadata.resourceVersion = String(this.#rv);
    const snapshot = structuredClone(pod);
    this.#log.push({ rv: this.#rv, type, pod: snapshot });
    for (const sink of this.#watchers) {
      if (sink.nodeName === undefined || sink.nodeName === pod.spec.nodeName)
        sink.send({ type, object: structuredClone(snapshot) });
    }
    return structuredClone(snapshot);
  }
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * A v1 Node as a kubelet registers it, with capacity taken from the Summary where it can be
 * (memory = available + working set, ephemeral-storage = node fs capacity), the address the kubelet
 * is reached at, and the port it reports in daemonEndpoints.
 */
export function kubeletStyleNode(
  nodeName: string,
  address: string,
  kubeletPort: number,
  summaryText: string,
): Record<string, unknown> {
  const summary = JSON.parse(summaryText) as {
    node?: { memory?: Record<string, number>; fs?: Record<string, number> };
  };
  const memory = summary.node?.memory;
  const memoryKi =
    memory?.availableBytes !== undefined && memory.workingSetBytes !== undefined
      ? Math.floor((memory.availableBytes + memory.workingSetBytes) / 1024)
      : 8_024_304;
  const storageKi =
    summary.node?.fs?.capacityBytes === undefined
      ? 954_976_684
      : Math.floor(summary.node.fs.capacityBytes / 1024);
  const capacity = {
    cpu: "4",
    "ephemeral-storage": `${storageKi}Ki`,
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
    memory: `${memoryKi}Ki`,
    pods: "110",
  };
  const condition = (
    type: string,
    status: string,
    reason: string,
    message: string,
  ): Record<string, string> => ({
    type,
    status,
    lastHeartbeatTime: "2026-06-26T10:14:30Z",
    lastTransitionTime: "2026-06-26T10:12:05Z",
    reason,
    message,
  });
  return {
    kind: "Node",
    apiVersion: "v1",
    metadata: {
      name: nodeName,
      uid: "5f0c7b9e-3f7e-4d0a-9a57-3c1f0e0c2b11",
      resourceVersion: "612",
      creationTimestamp: "2026-06-26T10:11:58Z",
      labels: {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": nodeName,
        "kubernetes.io/os": "linux",
      },
      annotations: {
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
    },
    spec: { podCIDR: "10.244.0.0/24", podCIDRs: ["10.244.0.0/24"] },
    status: {
      capacity,
      allocatable: { ...capacity, memory: `${memoryKi - 102_400}Ki` },
      conditions: [
        condition(
          "MemoryPressure",
          "False",
          "KubeletHasSufficientMemory",
          "kubelet has sufficient memory available",
        ),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
      ],
      addresses: [
        { type: "InternalIP", address },
        { type: "Hostname", address: nodeName },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
      nodeInfo: {
        machineID: "6c1f5d0e2b2a4c0f9e51d8a7c3b2e190",
        systemUUID: "6c1f5d0e-2b2a-4c0f-9e51-d8a7c3b2e190",
        bootID: "0b8e2f4a-7d1c-4e5b-a2f3-91c6d4e8b7a0",
        kernelVersion: "6.8.0-1015-gcp",
        osImage: "Debian GNU/Linux 12 (bookworm)",
        containerRuntimeVersion: "containerd://2.1.3",
        kubeletVersion: "v1.35.0",
        operatingSystem: "linux",
        architecture: "amd64",
      },
    },
  };
}
