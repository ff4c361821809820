/**
 * The pods of the benchmark trace's node: a deterministic mix of system daemons (a few critical),
 * and application pods of every QoS class, with the memory and disk behaviour the trace generator
 * plays out over time (base working set, slow leaks, log and scratch-space growth).
 */
import type { Prng } from "./prng.js";

export const MI = 1024 * 1024;
export const GI = 1024 * MI;

export type Qos = "Guaranteed" | "Burstable" | "BestEffort";

export interface ContainerModel {
  readonly name: string;
  readonly image: string;
  readonly cpuRequestMilli?: number;
  readonly cpuLimitMilli?: number;
  readonly memRequest?: number;
  readonly memLimit?: number;
  readonly ephemeralRequest?: number;
  readonly ephemeralLimit?: number;
  /** Working set the container settles around, bytes. */
  readonly baseWorkingSet: number;
  /** Bytes added to the working set every step (a slow leak); 0 for well-behaved containers. */
  readonly leakPerStep: number;
  /** Log bytes written per step (rotated at 10 MiB, as the kubelet's containerLogMaxSize). */
  readonly logBytesPerStep: number;
  /** Writable-layer bytes at start. */
  readonly rootfsBytes: number;
  readonly processes: number;
}

export type VolumeKind = "projected" | "configMap" | "secret" | "emptyDir" | "emptyDirMemory" | "pvc";

export interface VolumeModel {
  readonly name: string;
  readonly kind: VolumeKind;
  readonly sizeLimit?: number;
  /** Bytes used at start; emptyDirs grow slowly (scratch data), others stay. */
  readonly usedBytes: number;
  readonly growthPerStep: number;
  readonly claimName?: string;
}

export interface PodModel {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly app: string;
  readonly priority: number;
  readonly priorityClassName?: string;
  readonly staticPod: boolean;
  readonly critical: boolean;
  readonly qos: Qos;
  readonly terminationGracePeriodSeconds: number;
  readonly containers: readonly ContainerModel[];
  readonly volumes: readonly VolumeModel[];
  /** Epoch ms the pod started. */
  readonly startedAt: number;
}

interface SystemTemplate {
  readonly app: string;
  readonly namespace: string;
  readonly priorityClassName?: string;
  readonly priority: number;
  readonly staticPod?: boolean;
  readonly daemonSet: boolean;
  readonly containers: readonly {
    name: string;
    image: string;
    memRequestMi?: number;
    memLimitMi?: number;
    cpuMilli?: number;
    wsMi: number;
  }[];
}

/** Node daemons and cluster add-ons: the critical ones are never evicted (priority ≥ 2e9 or static). */
const SYSTEM_PODS: readonly SystemTemplate[] = [
  {
    app: "haproxy-internal",
    namespace: "kube-system",
    priority: 2_000_001_000,
    priorityClassName: "system-node-critical",
    staticPod: true,
    daemonSet: false,
    containers: [{ name: "haproxy", image: "haproxy:2.9", memRequestMi: 64, cpuMilli: 50, wsMi: 48 }],
  },
  {
    app: "kube-proxy",
    namespace: "kube-system",
    priority: 2_000_001_000,
    priorityClassName: "system-node-critical",
    daemonSet: true,
    containers: [
      { name: "kube-proxy", image: "registry.k8s.io/kube-proxy:v1.31.4", cpuMilli: 100, wsMi: 38 },
    ],
  },
  {
    app: "calico-node",
    namespace: "kube-system",
    priority: 2_000_001_000,
    priorityClassName: "system-node-critical",
    daemonSet: true,
    containers: [{ name: "calico-node", image: "quay.io/calico/node:v3.28.2", cpuMilli: 250, wsMi: 160 }],
  },
  {
    app: "ebs-csi-node",
    namespace: "kube-system",
    priority: 2_000_001_000,
    priorityClassName: "system-node-critical",
    daemonSet: true,
    containers: [
      {
        name: "ebs-plugin",
        image: "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.35.0",
        memRequestMi: 40,
        memLimitMi: 256,
        cpuMilli: 10,
        wsMi: 22,
      },
      {
        name: "node-driver-registrar",
        image: "public.ecr.aws/csi-components/csi-node-driver-registrar:v2.12.0",
        memRequestMi: 40,
        memLimitMi: 256,
        cpuMilli: 10,
        wsMi: 9,
      },
      {
        name: "liveness-probe",
        image: "public.ecr.aws/csi-components/livenessprobe:v2.14.0",
        memRequestMi: 40,
        memLimitMi: 256,
        cpuMilli: 10,
        wsMi: 8,
      },
    ],
  },
  {
    app: "node-local-dns",
    namespace: "kube-system",
    priority: 2_000_001_000,
    priorityClassName: "system-node-critical",
    daemonSet: true,
    containers: [
      {
        name: "node-cache",
        image: "registry.k8s.io/dns/k8s-dns-node-cache:1.23.1",
        memRequestMi: 5,
        cpuMilli: 25,
        wsMi: 24,
      },
    ],
  },
  {
    app: "coredns",
    namespace: "kube-system",
    priority: 2_000_000_000,
    priorityClassName: "system-cluster-critical",
    daemonSet: false,
    containers: [
      {
        name: "coredns",
        image: "registry.k8s.io/coredns/coredns:v1.11.3",
        memRequestMi: 70,
        memLimitMi: 170,
        cpuMilli: 100,
        wsMi: 34,
      },
    ],
  },
  {
    app: "coredns",
    namespace: "kube-system",
    priority: 2_000_000_000,
    priorityClassName: "system-cluster-critical",
    daemonSet: false,
    containers: [
      {
        name: "coredns",
        image: "registry.k8s.io/coredns/coredns:v1.11.3",
        memRequestMi: 70,
        memLimitMi: 170,
        cpuMilli: 100,
        wsMi: 31,
      },
    ],
  },
  {
    app: "metrics-server",
    namespace: "kube-system",
    priority: 2_000_000_000,
    priorityClassName: "system-cluster-critical",
    daemonSet: false,
    containers: [
      {
        name: "metrics-server",
        image: "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
        memRequestMi: 200,
        cpuMilli: 100,
        wsMi: 52,
      },
    ],
  },
  {
    app: "fluent-bit",
    namespace: "logging",
    priority: 1_000_000,
    priorityClassName: "daemonset-high",
    daemonSet: true,
    containers: [
      {
        name: "fluent-bit",
        image: "cr.fluentbit.io/fluent/fluent-bit:3.1.9",
        memRequestMi: 64,
        memLimitMi: 256,
        cpuMilli: 50,
        wsMi: 41,
      },
    ],
  },
  {
    app: "node-exporter",
    namespace: "monitoring",
    priority: 1_000_000,
    priorityClassName: "daemonset-high",
    daemonSet: true,
    containers: [
      {
        name: "node-exporter",
        image: "quay.io/prometheus/node-exporter:v1.8.2",
        memRequestMi: 32,
        memLimitMi: 64,
        cpuMilli: 20,
        wsMi: 18,
      },
      {
        name: "kube-rbac-proxy",
        image: "quay.io/brancz/kube-rbac-proxy:v0.18.1",
        memRequestMi: 16,
        memLimitMi: 32,
        cpuMilli: 10,
        wsMi: 12,
      },
    ],
  },
];

interface AppTemplate {
  readonly app: string;
  readonly namespace: string;
  readonly image: string;
  readonly qos: Qos;
  readonly priority: number;
  readonly priorityClassName?: string;
  /** Memory request (and limit for Guaranteed), MiB; ignored for BestEffort. */
  readonly memMi: number;
  readonly cpuMilli: number;
  /** Working set relative to the request (or absolute MiB for BestEffort). */
  readonly wsRatio: number;
  readonly sidecar: boolean;
  readonly emptyDir?: { readonly sizeLimitMi?: number; readonly medium?: "Memory" };
  readonly pvc?: boolean;
  readonly ephemeralLimitMi?: number;
}

const APPS: readonly AppTemplate[] = [
  {
    app: "checkout",
    namespace: "shop",
    image: "registry.example.com/shop/checkout:4.12.0",
    qos: "Burstable",
    priority: 1000,
    priorityClassName: "business-critical",
    memMi: 512,
    cpuMilli: 250,
    wsRatio: 0.8,
    sidecar: true,
  },
  {
    app: "cart",
    namespace: "shop",
    image: "registry.example.com/shop/cart:2.3.1",
    qos: "Burstable",
    priority: 1000,
    priorityClassName: "business-critical",
    memMi: 256,
    cpuMilli: 200,
    wsRatio: 0.9,
    sidecar: true,
    emptyDir: { sizeLimitMi: 512 },
  },
  {
    app: "catalog",
    namespace: "shop",
    image: "registry.example.com/shop/catalog:7.0.4",
    qos: "Guaranteed",
    priority: 1000,
    priorityClassName: "business-critical",
    memMi: 768,
    cpuMilli: 500,
    wsRatio: 0.7,
    sidecar: true,
  },
  {
    app: "search",
    namespace: "shop",
    image: "registry.example.com/shop/search:1.18.2",
    qos: "Guaranteed",
    priority: 0,
    memMi: 1536,
    cpuMilli: 1000,
    wsRatio: 0.75,
    sidecar: false,
    pvc: true,
  },
  {
    app: "frontend",
    namespace: "web",
    image: "registry.example.com/web/frontend:2024.11.3",
    qos: "Burstable",
    priority: 0,
    memMi: 128,
    cpuMilli: 100,
    wsRatio: 1.1,
    sidecar: true,
    ephemeralLimitMi: 1024,
  },
  {
    app: "api-gateway",
    namespace: "web",
    image: "registry.example.com/web/gateway:3.6.0",
    qos: "Burstable",
    priority: 1000,
    priorityClassName: "business-critical",
    memMi: 384,
    cpuMilli: 300,
    wsRatio: 0.85,
    sidecar: false,
  },
  {
    app: "sessions",
    namespace: "web",
    image: "redis:7.2.5",
    qos: "Guaranteed",
    priority: 0,
    memMi: 512,
    cpuMilli: 250,
    wsRatio: 0.6,
    sidecar: false,
    emptyDir: { medium: "Memory" },
  },
  {
    app: "image-resizer",
    namespace: "media",
    image: "registry.example.com/media/resizer:0.9.8",
    qos: "Burstable",
    priority: 0,
    memMi: 256,
    cpuMilli: 500,
    wsRatio: 1.3,
    sidecar: false,
    emptyDir: {},
  },
  {
    app: "thumbnailer",
    namespace: "media",
    image: "registry.example.com/media/thumbs:1.2.0",
    qos: "BestEffort",
    priority: 0,
    memMi: 0,
    cpuMilli: 0,
    wsRatio: 180,
    sidecar: false,
    emptyDir: { sizeLimitMi: 2048 },
  },
  {
    app: "report-builder",
    namespace: "analytics",
    image: "registry.example.com/analytics/reports:5.1.1",
    qos: "Burstable",
    priority: -10,
    priorityClassName: "batch-low",
    memMi: 512,
    cpuMilli: 500,
    wsRatio: 1.2,
    sidecar: false,
    emptyDir: { sizeLimitMi: 4096 },
  },
  {
    app: "etl-worker",
    namespace: "analytics",
    image: "registry.example.com/analytics/etl:2.0.0",
    qos: "BestEffort",
    priority: -10,
    priorityClassName: "batch-low",
    memMi: 0,
    cpuMilli: 0,
    wsRatio: 420,
    sidecar: false,
    emptyDir: {},
  },
  {
    app: "notifier",
    namespace: "platform",
    image: "registry.example.com/platform/notifier:1.4.3",
    qos: "Burstable",
    priority: 0,
    memMi: 96,
    cpuMilli: 50,
    wsRatio: 0.9,
    sidecar: true,
  },
  {
    app: "auth",
    namespace: "platform",
    image: "registry.example.com/platform/auth:6.2.0",
    qos: "Guaranteed",
    priority: 1000,
    priorityClassName: "business-critical",
    memMi: 512,
    cpuMilli: 250,
    wsRatio: 0.65,
    sidecar: true,
  },
  {
    app: "feature-flags",
    namespace: "platform",
    image: "registry.example.com/platform/flags:0.31.0",
    qos: "BestEffort",
    priority: 0,
    memMi: 0,
    cpuMilli: 0,
    wsRatio: 90,
    sidecar: false,
  },
  {
    app: "ledger",
    namespace: "payments",
    image: "registry.example.com/payments/ledger:3.3.3",
    qos: "Guaranteed",
    priority: 1000,
    priorityClassName: "business-critical",
    memMi: 1024,
    cpuMilli: 1000,
    wsRatio: 0.7,
    sidecar: true,
    pvc: true,
  },
  {
    app: "fraud-scorer",
    namespace: "payments",
    image: "registry.example.com/payments/fraud:8.0.1",
    qos: "Burstable",
    priority: 0,
    memMi: 640,
    cpuMilli: 500,
    wsRatio: 0.95,
    sidecar: true,
  },
];

function ms(mi: number): number {
  return Math.round(mi * MI);
}

/** The sidecar most mesh-enabled pods carry. */
function sidecar(rng: Prng): ContainerModel {
  return {
    name: "istio-proxy",
    image: "docker.io/istio/proxyv2:1.23.2",
    cpuRequestMilli: 100,
    cpuLimitMilli: 2000,
    memRequest: ms(128),
    memLimit: ms(1024),
    baseWorkingSet: ms(rng.range(55, 95)),
    leakPerStep: 0,
    logBytesPerStep: rng.int(200, 4000),
    rootfsBytes: rng.int(8, 40) * 4096,
    processes: 2,
  };
}

function projectedToken(rng: Prng): VolumeModel {
  return { name: `kube-api-access-${rng.suffix(5)}`, kind: "projected", usedBytes: 12288, growthPerStep: 0 };
}

function systemPod(t: SystemTemplate, rng: Prng, node: string, startedAt: number): PodModel {
  const name = t.staticPod
    ? `${t.app}-${node}`
    : t.daemonSet
      ? `${t.app}-${rng.suffix(5)}`
      : `${t.app}-${rng.suffix(10)}-${rng.suffix(5)}`;
  const containers = t.containers.map((c): ContainerModel => ({
    name: c.name,
    image: c.image,
    ...(c.cpuMilli !== undefined ? { cpuRequestMilli: c.cpuMilli } : {}),
    ...(c.memRequestMi !== undefined ? { memRequest: ms(c.memRequestMi) } : {}),
    ...(c.memLimitMi !== undefined ? { memLimit: ms(c.memLimitMi) } : {}),
    baseWorkingSet: ms(c.wsMi * rng.range(0.9, 1.1)),
    leakPerStep: 0,
    logBytesPerStep: rng.int(100, 3000),
    rootfsBytes: rng.int(2, 30) * 4096,
    processes: rng.int(1, 3),
  }));
  const qos: Qos = containers.some((c) => c.memRequest !== undefined || c.cpuRequestMilli !== undefined)
    ? "Burstable"
    : "BestEffort";
  return {
    name,
    namespace: t.namespace,
    uid: rng.uuid(),
    app: t.app,
    priority: t.priority,
    ...(t.priorityClassName !== undefined ? { priorityClassName: t.priorityClassName } : {}),
    staticPod: t.staticPod === true,
    critical: t.staticPod === true || t.priority >= 2_000_000_000,
    qos,
    terminationGracePeriodSeconds: 30,
    containers,
    volumes: t.staticPod === true ? [] : [projectedToken(rng)],
    startedAt,
  };
}

/**
 * An application pod from a template. `leaky` pods grow slowly without a memory limit: they are what
 * pushes the node into memory pressure now and then.
 */
export function appPod(
  t: AppTemplate,
  rng: Prng,
  startedAt: number,
  leaky: boolean,
  replicaSetHash: string,
): PodModel {
  const guaranteed = t.qos === "Guaranteed";
  const bestEffort = t.qos === "BestEffort";
  const memRequest = bestEffort ? undefined : ms(t.memMi);
  const wsBase = bestEffort
    ? ms(t.wsRatio * rng.range(0.7, 1.3))
    : Math.round((memRequest ?? 0) * t.wsRatio * rng.range(0.85, 1.15));
  const main: ContainerModel = {
    name: t.app,
    image: t.image,
    ...(bestEffort ? {} : { cpuRequestMilli: t.cpuMilli }),
    ...(guaranteed ? { cpuLimitMilli: t.cpuMilli } : {}),
    ...(memRequest !== undefined ? { memRequest } : {}),
    // Burstable services have a memory limit; batch pods do not.
    ...(guaranteed && memRequest !== undefined
      ? { memLimit: memRequest }
      : t.qos === "Burstable" && t.priority >= 0
        ? { memLimit: (memRequest ?? 0) * 4 }
        : {}),
    ...(t.ephemeralLimitMi !== undefined
      ? { ephemeralRequest: ms(t.ephemeralLimitMi / 4), ephemeralLimit: ms(t.ephemeralLimitMi) }
      : {}),
    baseWorkingSet: wsBase,
    leakPerStep: leaky ? Math.round((t.priority < 0 ? rng.range(1.5, 4) : rng.range(0.5, 1.5)) * MI) : 0,
    logBytesPerStep: rng.int(500, 40_000),
    rootfsBytes: rng.int(4, 600) * 4096,
    processes: rng.int(1, 12),
  };
  // Sidecars only where the app's QoS allows them (a Guaranteed pod's sidecar must match limits).
  const withSidecar = t.sidecar && !bestEffort;
  const containers = withSidecar ? [main, guaranteed ? guaranteedSidecar(rng) : sidecar(rng)] : [main];
  const volumes: VolumeModel[] = [projectedToken(rng)];
  if (t.emptyDir !== undefined) {
    const memory = t.emptyDir.medium === "Memory";
    const limit = t.emptyDir.sizeLimitMi === undefined ? undefined : ms(t.emptyDir.sizeLimitMi);
    volumes.push({
      name: memory ? "shm" : "scratch",
      kind: memory ? "emptyDirMemory" : "emptyDir",
      ...(limit !== undefined ? { sizeLimit: limit } : {}),
      usedBytes: rng.int(1, 64) * MI,
      // Stays well below any sizeLimit over 10,000 steps: local-storage evictions are not the subject.
      growthPerStep: limit === undefined ? rng.int(0, 8192) : Math.floor(limit / 40_000),
    });
  }
  if (t.pvc === true)
    volumes.push({
      name: "data",
      kind: "pvc",
      claimName: `data-${t.app}-0`,
      usedBytes: rng.int(1, 40) * GI,
      growthPerStep: 4096,
    });
  if (t.sidecar)
    volumes.push({ name: "istio-envoy", kind: "emptyDirMemory", usedBytes: 4096, growthPerStep: 0 });
  return {
    name: `${t.app}-${replicaSetHash}-${rng.suffix(5)}`,
    namespace: t.namespace,
    uid: rng.uuid(),
    app: t.app,
    priority: t.priority,
    ...(t.priorityClassName !== undefined ? { priorityClassName: t.priorityClassName } : {}),
    staticPod: false,
    critical: false,
    qos: t.qos,
    terminationGracePeriodSeconds: t.qos === "Guaranteed" ? 60 : 30,
    containers,
    volumes,
    startedAt,
  };
}

function guaranteedSidecar(rng: Prng): ContainerModel {
  const s = sidecar(rng);
  return { ...s, cpuRequestMilli: 100, cpuLimitMilli: 100, memRequest: ms(256), memLimit: ms(256) };
}

export interface NodePods {
  readonly pods: PodModel[];
  /** Makes a replacement for an evicted pod (its controller recreates it). */
  readonly replacementFor: (pod: PodModel, startedAt: number) => PodModel;
}

/** `count` pods: the system pods first, then applications from the templates, a few of them leaky. */
export function nodePods(rng: Prng, count: number, nodeName: string, startedAt: number): NodePods {
  const pods: PodModel[] = [];
  for (const t of SYSTEM_PODS) {
    if (pods.length >= count) break;
    pods.push(systemPod(t, rng, nodeName, startedAt - rng.int(3_600_000, 90_000_000)));
  }
  const hashes = new Map<string, string>();
  const template = new Map<string, AppTemplate>();
  const hashOf = (t: AppTemplate): string => {
    let h = hashes.get(t.app);
    if (h === undefined) {
      h = rng.suffix(rng.int(9, 10));
      hashes.set(t.app, h);
    }
    return h;
  };
  for (let i = 0; pods.length < count; i++) {
    const t = APPS[i % APPS.length] ?? APPS[0];
    if (t === undefined) break;
    // Most low-priority batch pods leak (nothing but eviction stops them: they are what pushes the
    // node into memory pressure now and then); a few services leak up to their limit and get
    // OOM-killed by the kernel instead.
    const leaky = t.priority < 0 ? rng.chance(0.6) : t.qos === "Burstable" && rng.chance(0.08);
    // Deployed within the last few hours (a busy cluster rolls out daily).
    const pod = appPod(t, rng, startedAt - rng.int(1_000, 9_000) * 1000, leaky, hashOf(t));
    template.set(pod.uid, t);
    pods.push(pod);
  }
  return {
    pods,
    replacementFor: (pod, at) => {
      const t = template.get(pod.uid);
      if (t === undefined) return pod;
      // The replacement runs the same code: if the original leaked, so does the new one.
      const leaky = pod.containers.some((c) => c.leakPerStep > 0);
      const next = appPod(t, rng, at, leaky, hashOf(t));
      template.set(next.uid, t);
      return next;
    },
  };
}

function cpu(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

function mem(bytes: number): string {
  return bytes % GI === 0 ? `${bytes / GI}Gi` : bytes % MI === 0 ? `${bytes / MI}Mi` : String(bytes);
}

/** The pod as the API server returns it (`kubectl get pod -o json`, trimmed to common fields). */
export function podObject(
  p: PodModel,
  nodeName: string,
  time: (ms: number) => string,
): Record<string, unknown> {
  const annotations: Record<string, string> = p.staticPod
    ? {
        "kubernetes.io/config.source": "file",
        "kubernetes.io/config.hash": p.uid.replaceAll("-", ""),
        "kubernetes.io/config.seen": time(p.startedAt),
      }
    : { "kubernetes.io/config.source": "api", "kubernetes.io/config.seen": time(p.startedAt) };
  const resources = (c: ContainerModel): Record<string, unknown> => {
    const requests: Record<string, string> = {};
    const limits: Record<string, string> = {};
    if (c.cpuRequestMilli !== undefined) requests["cpu"] = cpu(c.cpuRequestMilli);
    if (c.memRequest !== undefined) requests["memory"] = mem(c.memRequest);
    if (c.ephemeralRequest !== undefined) requests["ephemeral-storage"] = mem(c.ephemeralRequest);
    if (c.cpuLimitMilli !== undefined) limits["cpu"] = cpu(c.cpuLimitMilli);
    if (c.memLimit !== undefined) limits["memory"] = mem(c.memLimit);
    if (c.ephemeralLimit !== undefined) limits["ephemeral-storage"] = mem(c.ephemeralLimit);
    return {
      ...(Object.keys(requests).length > 0 ? { requests } : {}),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
    };
  };
  const volume = (v: VolumeModel): Record<string, unknown> => {
    switch (v.kind) {
      case "projected":
        return {
          name: v.name,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
            ],
          },
        };
      case "configMap":
        return { name: v.name, configMap: { name: v.name, defaultMode: 420 } };
      case "secret":
        return { name: v.name, secret: { secretName: v.name, defaultMode: 420 } };
      case "emptyDir":
        return { name: v.name, emptyDir: v.sizeLimit !== undefined ? { sizeLimit: mem(v.sizeLimit) } : {} };
      case "emptyDirMemory":
        return { name: v.name, emptyDir: { medium: "Memory" } };
      case "pvc":
        return { name: v.name, persistentVolumeClaim: { claimName: v.claimName ?? v.name } };
    }
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid: p.uid,
      creationTimestamp: time(p.startedAt - 2000),
      labels: { app: p.app },
      annotations,
    },
    spec: {
      nodeName,
      priority: p.priority,
      ...(p.priorityClassName !== undefined ? { priorityClassName: p.priorityClassName } : {}),
      terminationGracePeriodSeconds: p.terminationGracePeriodSeconds,
      containers: p.containers.map((c) => ({ name: c.name, image: c.image, resources: resources(c) })),
      volumes: p.volumes.map(volume),
    },
    status: { phase: "Running", qosClass: p.qos, startTime: time(p.startedAt) },
  };
}
