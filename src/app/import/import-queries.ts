/**
 * The series an import reads, as the exporters every Prometheus-monitored cluster runs expose them
 * (docs/prometheus-import.md has the table): cAdvisor through the kubelet (the node's, the pods
 * cgroup's, each pod's and container's memory), node-exporter (filesystems, processes) and
 * kube-state-metrics (which pods, their requests, limits, QoS, priority class and phase; the
 * node's kubelet, kernel, OS image and runtime versions).
 *
 * Only plain selectors: the import wants raw samples, so that it can place each at the step it was
 * scraped for, and a function (rate, max...) would resample them.
 */

export interface ImportSelectorOptions {
  readonly node: string;
  /** The label cAdvisor's series carry the node name in (prometheus-operator: `node`). */
  readonly nodeLabel: string;
  /**
   * The label node-exporter's series name the node in; `instance` (the default) matches the node's
   * name with or without a port, as kube-prometheus relabels it.
   */
  readonly nodeExporterLabel: string;
  readonly nodefsMountpoint: string;
  readonly imagefsMountpoint: string;
}

/** A PromQL string literal (the node name comes from the command line). */
export function promString(value: string): string {
  return JSON.stringify(value);
}

/** RE2 with every metacharacter escaped, for a name inside a regex matcher. */
function regexLiteral(value: string): string {
  return value.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}

export interface ImportSelectors {
  readonly machineMemory: string;
  /** Every cgroup of the node with a working set: `/`, the pods cgroup, each pod's and container's. */
  readonly workingSet: string;
  readonly usage: string;
  readonly podsLimit: string;
  readonly fsAvail: string;
  readonly fsSize: string;
  readonly fsFilesFree: string;
  readonly fsFiles: string;
  readonly pids: string;
  readonly pidMax: string;
  readonly podInfo: string;
  /** kube-state-metrics' Node labels (kubelet, kernel, OS image, runtime): the trace's environment. */
  readonly nodeInfo: string;
}

export function importSelectors(o: ImportSelectorOptions): ImportSelectors {
  const onNode = `${o.nodeLabel}=${promString(o.node)}`;
  const exporter =
    o.nodeExporterLabel === "instance"
      ? `instance=~${promString(`${regexLiteral(o.node)}(:[0-9]+)?`)}`
      : `${o.nodeExporterLabel}=${promString(o.node)}`;
  const mounts = `mountpoint=~${promString(`${regexLiteral(o.nodefsMountpoint)}|${regexLiteral(o.imagefsMountpoint)}`)}`;
  return {
    machineMemory: `machine_memory_bytes{${onNode}}`,
    // The node (`/`), the pods cgroup and everything below it; not system slices.
    workingSet: `container_memory_working_set_bytes{${onNode},id=~"/|/kubepods.*"}`,
    usage: `container_memory_usage_bytes{${onNode},id=~"/|/kubepods.*",container=""}`,
    podsLimit: `container_spec_memory_limit_bytes{${onNode},id=~"/kubepods(\\\\.slice)?"}`,
    fsAvail: `node_filesystem_avail_bytes{${exporter},${mounts}}`,
    fsSize: `node_filesystem_size_bytes{${exporter},${mounts}}`,
    fsFilesFree: `node_filesystem_files_free{${exporter},${mounts}}`,
    fsFiles: `node_filesystem_files{${exporter},${mounts}}`,
    pids: `node_processes_pids{${exporter}}`,
    pidMax: `node_processes_max_processes{${exporter}}`,
    podInfo: `kube_pod_info{node=${promString(o.node)}}`,
    nodeInfo: `kube_node_info{node=${promString(o.node)}}`,
  };
}

/**
 * kube-state-metrics' per-pod series carry no node label: they are selected by the pods'
 * namespaces and names, a regex alternation over the pods kube_pod_info placed on the node.
 */
export function podScopedSelectors(podNames: readonly string[]): {
  readonly phase: string;
  readonly qos: string;
  readonly requests: string;
  readonly limits: string;
  readonly containerInfo: string;
} {
  const names = [...new Set(podNames)].sort().map(regexLiteral).join("|");
  const pods = `pod=~${promString(names === "" ? "^$" : names)}`;
  return {
    phase: `kube_pod_status_phase{${pods}}`,
    qos: `kube_pod_status_qos_class{${pods}}`,
    requests: `kube_pod_container_resource_requests{${pods}}`,
    limits: `kube_pod_container_resource_limits{${pods}}`,
    containerInfo: `kube_pod_container_info{${pods}}`,
  };
}
