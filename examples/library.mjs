// evictd as a library: what would the kubelet's eviction manager do on this node, right now?
// Builds the eviction configuration from a KubeletConfiguration object and kubelet flags, decodes a
// Summary API response and the node's pods, runs one synchronize, and prints who would be evicted
// and why; then replays a tiny scenario held in memory. Run it where evictd is installed (it is not
// on npm: `npm pack` in a clone of evictd writes evictd-0.1.0.tgz):
//   npm install ./evictd-0.1.0.tgz && node library.mjs
import {
  admitPod,
  buildEvictionConfig,
  decodePodList,
  decodeSummary,
  detectFilesystemLayout,
  explainRanking,
  formatIssue,
  formatQuantity,
  INITIAL_STATE,
  IssueList,
  parseJsonExact,
  podStatsLookup,
  replay,
  synchronize,
} from "evictd";

// 1. The configuration, as the kubelet would read it: the file's object, then the flags over it.
const kubeletConfiguration = {
  apiVersion: "kubelet.config.k8s.io/v1beta1",
  kind: "KubeletConfiguration",
  evictionHard: { "memory.available": "500Mi" },
  mergeDefaultEvictionSettings: true, // keep the default nodefs/imagefs hard thresholds
};
const built = buildEvictionConfig({
  config: kubeletConfiguration,
  flags: ["--eviction-minimum-reclaim=memory.available=100Mi"],
});
if (!built.ok) throw new Error(built.issues.map(formatIssue).join("\n"));
for (const warning of built.warnings) console.error(formatIssue(warning));
const { config } = built;
const shown = (t) => (t.value.kind === "quantity" ? formatQuantity(t.value.quantity) : t.value.text);
console.log(`thresholds: ${config.thresholds.map((t) => `${t.signal}<${shown(t)}`).join(", ")}`);

// 2. The node's pods (a v1 PodList, as `kubectl get pods -o json` prints it) and its stats (the
//    kubelet's /stats/summary). Summary counters are uint64: parseJsonExact keeps them exact where
//    JSON.parse would round anything above 2^53.
const podList = {
  kind: "PodList",
  apiVersion: "v1",
  items: [
    pod("default", "web", { requests: { memory: "256Mi" }, limits: { memory: "2Gi" } }), // Burstable
    pod("default", "batch", {}), // BestEffort
    pod("default", "db", { requests: { memory: "1Gi" }, limits: { memory: "1Gi" } }), // Guaranteed
  ],
};
const now = Date.parse("2025-01-01T00:00:10Z");
const summaryJson = `{
  "node": {
    "nodeName": "node-1",
    "memory": { "time": "2025-01-01T00:00:10Z", "availableBytes": 419430400, "workingSetBytes": 3875536896 },
    "fs": { "time": "2025-01-01T00:00:10Z", "availableBytes": 53687091200, "capacityBytes": 107374182400,
            "inodesFree": 6000000, "inodes": 6553600 },
    "rlimit": { "time": "2025-01-01T00:00:10Z", "maxpid": 4194304, "curproc": 312 }
  },
  "pods": [
    ${podStats("default", "web", 2040528896)},
    ${podStats("default", "batch", 314572800)},
    ${podStats("default", "db", 838860800)}
  ]
}`;

const issues = new IssueList();
const pods = decodePodList(podList, "pods", issues);
const summary = decodeSummary(parseJsonExact(summaryJson), "summary", now, issues);
if (summary === undefined || issues.hasErrors) throw new Error(issues.items.map(formatIssue).join("\n"));

// 3. One run of the eviction manager. Node-level reclaim (image and container GC, for disk
//    signals) is the caller's I/O: the engine stops and resumes with what it freed.
const layout = detectFilesystemLayout(summary);
let result = synchronize(config, INITIAL_STATE, { now, summary, activePods: pods, layout });
if (result.kind === "reclaim") result = { kind: "done", ...result.resume({ summary }) };
const { report } = result;

console.log(`conditions: ${report.conditions.join(", ") || "none"}`);
for (const eviction of report.evictions) {
  console.log(`evict ${eviction.pod.key} (${eviction.signal}): ${eviction.message}`);
}
if (report.evictions.length === 0) console.log(`no eviction: ${report.outcome}`);

// Why that pod and not another: the kubelet's ranking, in words.
for (const place of explainRanking("memory.available", layout, pods, podStatsLookup(summary)) ?? []) {
  console.log(`  ${place.place}. ${place.pod.key}: ${place.reason}`);
}

// Admission under the conditions the run reported: a BestEffort pod arriving now.
const [newcomer] = decodePodList(pod("default", "cron", {}), "newcomer", issues);
const admitted = admitPod(newcomer, report.conditions);
console.log(`admit ${newcomer.key}: ${admitted.admit ? "yes" : `no, ${admitted.message}`}`);

// 4. Replay: the same node over time, as `evictd replay --output jsonl` would print it.
const scenario = {
  start: "2025-01-01T00:00:00Z",
  config: kubeletConfiguration,
  pods: podList,
  steps: [
    { at: "0s", summary: { node: { memory: { availableBytes: 2147483648 } } } },
    { at: "10s", summary: parseJsonExact(summaryJson) },
  ],
};
for await (const record of replay(scenario)) {
  if (record.type !== "step") continue;
  const evicted = record.evictions.map((e) => e.pod).join(", ") || "nobody";
  console.log(`replay ${record.at}: evicted ${evicted}; conditions ${record.conditions.join(", ") || "none"}`);
}

/** A v1 Pod with one container. */
function pod(namespace, name, resources) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace, name, uid: `${namespace}-${name}` },
    spec: { containers: [{ name: "main", resources }] },
  };
}

/** A pod's entry in the Summary API response, as JSON text. */
function podStats(namespace, name, workingSetBytes) {
  const memory = { time: "2025-01-01T00:00:10Z", workingSetBytes };
  return JSON.stringify({
    podRef: { namespace, name, uid: `${namespace}-${name}` },
    memory,
    containers: [{ name: "main", memory }],
  });
}
