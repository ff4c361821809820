/**
 * Which KubeletConfiguration fields `evictd run` acts on, and why it does not act on the others.
 * Every field of `KUBELET_CONFIGURATION_FIELDS` is in exactly one of the two tables (a test holds
 * them to it). A node file's `config` that sets a field of the second table gets one warning
 * naming the field and the reason: a kubelet would act on it, `evictd run` does not, and an
 * operator who copied a kubelet's config should not believe otherwise.
 */

/** Fields `evictd run` reads from the node file's `config`, with where each takes effect. */
export const RUN_HONOURED_KUBELET_FIELDS: Readonly<Record<string, string>> = {
  apiVersion: "checked: kubelet.config.k8s.io/v1beta1 (or an OpenShift KubeletConfig)",
  kind: "checked: KubeletConfiguration",
  evictionHard: "the hard thresholds",
  evictionSoft: "the soft thresholds",
  evictionSoftGracePeriod: "the soft thresholds' grace periods",
  evictionMinimumReclaim: "the thresholds' minimum reclaim",
  evictionPressureTransitionPeriod: "how long a pressure condition outlasts its threshold",
  evictionMaxPodGracePeriod: "the grace period of a soft eviction",
  mergeDefaultEvictionSettings: "whether the kubelet's default thresholds are kept",
  localStorageCapacityIsolation: "local storage evictions (emptyDir sizeLimit, ephemeral-storage limits)",
  enforceNodeAllocatable: "pods: the allocatableMemory.available threshold",
  maxPods: "admission: a pod past it is rejected OutOfpods",
  containerLogMaxSize: "container logs: rotated at this size",
  containerLogMaxFiles: "container logs: files kept per container",
  containerLogMonitorInterval: "container logs: how often their size is looked at",
};

const NODE_FILE_LISTEN = "run serves one plain-HTTP address: the node file's listen";
const NO_AUTH = "run's HTTP has no TLS and no authentication (keep listen on loopback)";
const NO_DEBUG = "run serves no debugging, profiling or log endpoints";
const MANIFEST_DIR = "run's pods come from the node file's manifestDir, watched as it changes";
const NO_IMAGES = "run pulls no images: a container is a command on the host";
const NO_API =
  "run talks to no API server: its node and pods exist on this machine only (watch --node is the cluster's)";
const NO_NETWORK = "run gives pods no network of their own: containers share the host's network and DNS";
const MEMORY_AND_PIDS = "run manages memory and PIDs only: no CPU limits, CPU sets or quotas";
const NO_PLACEMENT = "run places no pod on NUMA nodes or devices";
const NO_RUNTIME = "run is its own container runtime: no CRI endpoint";
const NODE_FILE_RESERVED =
  "run takes reservations from the node file's top level (systemReserved, kubeReserved)";
const NO_SHUTDOWN =
  "run does not watch for node shutdown: SIGTERM stops the daemon and its pods keep running (--cleanup-on-exit stops them)";
const CONTAINER_LOGS = "run keeps container logs under the node file's stateDir";
const ONE_ROTATION = "run rotates container logs one at a time";
const NO_SECURITY = "run starts containers as plain host processes";

/** Fields a kubelet acts on and `evictd run` does not: field → why, said in the warning. */
export const RUN_UNHONOURED_KUBELET_FIELDS: Readonly<Record<string, string>> = {
  enableServer: NODE_FILE_LISTEN,
  address: NODE_FILE_LISTEN,
  port: NODE_FILE_LISTEN,
  readOnlyPort: NODE_FILE_LISTEN,
  healthzPort: NODE_FILE_LISTEN,
  healthzBindAddress: NODE_FILE_LISTEN,
  tlsCertFile: NO_AUTH,
  tlsPrivateKeyFile: NO_AUTH,
  tlsCipherSuites: NO_AUTH,
  tlsCurvePreferences: NO_AUTH,
  tlsMinVersion: NO_AUTH,
  rotateCertificates: NO_AUTH,
  serverTLSBootstrap: NO_AUTH,
  authentication: NO_AUTH,
  authorization: NO_AUTH,
  enableDebuggingHandlers: NO_DEBUG,
  enableContentionProfiling: NO_DEBUG,
  enableProfilingHandler: NO_DEBUG,
  enableDebugFlagsHandler: NO_DEBUG,
  enableSystemLogHandler: NO_DEBUG,
  enableSystemLogQuery: NO_DEBUG,
  staticPodPath: MANIFEST_DIR,
  staticPodURL: MANIFEST_DIR,
  staticPodURLHeader: MANIFEST_DIR,
  fileCheckFrequency: MANIFEST_DIR,
  httpCheckFrequency: MANIFEST_DIR,
  syncFrequency: MANIFEST_DIR,
  podLogsDir: CONTAINER_LOGS,
  containerLogMaxWorkers: ONE_ROTATION,
  registryPullQPS: NO_IMAGES,
  registryBurst: NO_IMAGES,
  imagePullCredentialsVerificationPolicy: NO_IMAGES,
  preloadedImagesVerificationAllowlist: NO_IMAGES,
  serializeImagePulls: NO_IMAGES,
  maxParallelImagePulls: NO_IMAGES,
  imageMinimumGCAge: `${NO_IMAGES}, so image GC has nothing to collect`,
  imageMaximumGCAge: `${NO_IMAGES}, so image GC has nothing to collect`,
  imageGCHighThresholdPercent: `${NO_IMAGES}, so image GC has nothing to collect`,
  imageGCLowThresholdPercent: `${NO_IMAGES}, so image GC has nothing to collect`,
  eventRecordQPS: NO_API,
  eventBurst: NO_API,
  kubeAPIQPS: NO_API,
  kubeAPIBurst: NO_API,
  contentType: NO_API,
  nodeStatusUpdateFrequency: NO_API,
  nodeStatusReportFrequency: NO_API,
  nodeStatusMaxImages: NO_API,
  nodeLeaseDurationSeconds: NO_API,
  registerNode: NO_API,
  registerWithTaints: NO_API,
  providerID: NO_API,
  enableControllerAttachDetach: `${NO_API}; emptyDir is its only volume`,
  configMapAndSecretChangeDetectionStrategy: `${NO_API}; emptyDir is its only volume`,
  volumePluginDir: "emptyDir is run's only volume: no volume plugins",
  volumeStatsAggPeriod: "run measures pod volumes on its own period (docs/architecture.md)",
  clusterDomain: NO_NETWORK,
  clusterDNS: NO_NETWORK,
  resolvConf: NO_NETWORK,
  hairpinMode: NO_NETWORK,
  podCIDR: NO_NETWORK,
  makeIPTablesUtilChains: NO_NETWORK,
  iptablesMasqueradeBit: NO_NETWORK,
  iptablesDropBit: NO_NETWORK,
  streamingConnectionIdleTimeout: "run serves no exec, attach or port-forward streams",
  oomScoreAdj: "run leaves its own oom_score_adj as it was started (pods get the kubelet's per-QoS values)",
  kubeletCgroups: "run does not move itself: it builds the node's cgroups under its own",
  systemCgroups: "run does not move system processes into a cgroup",
  cgroupRoot: "run builds the node's cgroups under its own cgroup",
  cgroupsPerQOS: "run always lays pods out per QoS class (pods/burstable, pods/besteffort)",
  cgroupDriver: "run writes cgroupfs itself (v1 or v2), never through systemd",
  failCgroupV1: "run works on cgroup v1 and v2 alike",
  kubeReservedCgroup: "run enforces no kube-reserved cgroup",
  systemReservedCgroup: "run enforces no system-reserved cgroup",
  systemReserved: NODE_FILE_RESERVED,
  kubeReserved: NODE_FILE_RESERVED,
  kernelMemcgNotification: "run's kernel wake-ups are the node file's notifications (default true)",
  cpuManagerPolicy: MEMORY_AND_PIDS,
  cpuManagerPolicyOptions: MEMORY_AND_PIDS,
  cpuManagerReconcilePeriod: MEMORY_AND_PIDS,
  reservedSystemCPUs: MEMORY_AND_PIDS,
  cpuCFSQuota: MEMORY_AND_PIDS,
  cpuCFSQuotaPeriod: MEMORY_AND_PIDS,
  memoryManagerPolicy: NO_PLACEMENT,
  reservedMemory: NO_PLACEMENT,
  topologyManagerPolicy: NO_PLACEMENT,
  topologyManagerScope: NO_PLACEMENT,
  topologyManagerPolicyOptions: NO_PLACEMENT,
  draManagerReconcilePeriod: NO_PLACEMENT,
  qosReserved: "run reserves no memory per QoS tier",
  memoryThrottlingFactor: "run sets no memory.high (no memory QoS)",
  memoryReservationPolicy: "run sets no memory.min (no memory QoS)",
  singleProcessOOMKill: "run leaves memory.oom.group as the kernel has it",
  memorySwap: "run sets no swap limit for pods",
  failSwapOn: "run starts whether or not swap is on",
  podPidsLimit: "run limits PIDs for the node's pods together (capacity.pids), not per pod",
  podsPerCore: "run admits up to maxPods whatever the number of cores",
  runtimeRequestTimeout: NO_RUNTIME,
  containerRuntimeEndpoint: NO_RUNTIME,
  imageServiceEndpoint: NO_RUNTIME,
  runOnce: "run is a daemon: it keeps its pods until it is stopped",
  maxOpenFiles: "run leaves its file-descriptor limit as it was started",
  protectKernelDefaults: "run checks no kernel tunables",
  allowedUnsafeSysctls: NO_SECURITY,
  seccompDefault: NO_SECURITY,
  userNamespaces: NO_SECURITY,
  featureGates: "run reads no feature gates: it behaves as the kubelet does with its defaults",
  crashLoopBackOff: "run's restart back-off is the kubelet's default (10 s, doubling, at most 5 min)",
  shutdownGracePeriod: NO_SHUTDOWN,
  shutdownGracePeriodCriticalPods: NO_SHUTDOWN,
  shutdownGracePeriodByPodPriority: NO_SHUTDOWN,
  logging: "run logs JSON lines (pino) on stdout at info",
  tracing: "run exports no traces",
  showHiddenMetricsForVersion: "run's /metrics has no hidden metrics",
};
