/**
 * What an imported trace's figures rest on, for its header (`source`): which
 * eviction signals come exactly from the series the kubelet itself reads (cAdvisor's), which from
 * another exporter's near-equivalent, and which the usual exporters do not have at all (left out
 * of the Summary, so the replay sees no such signal rather than an invented one).
 */
export type FigureSource = "exact" | "approximate" | "missing";

/** Signal or pod field → where it comes from, and from which series. */
export type FigureSources = Readonly<
  Record<string, { readonly source: FigureSource; readonly from: string }>
>;

export interface SeriesCoverage {
  readonly podsCgroupLimit: boolean;
  readonly nodefs: boolean;
  readonly imagefs: boolean;
  readonly pids: boolean;
  readonly qosClass: boolean;
  readonly requests: boolean;
}

export function figureSources(c: SeriesCoverage): FigureSources {
  const fsFrom = (mount: string): string =>
    `node-exporter node_filesystem_{avail_bytes,size_bytes,files_free,files}{mountpoint=${JSON.stringify(mount)}}`;
  return {
    "memory.available": {
      source: "exact",
      from: 'cAdvisor machine_memory_bytes − container_memory_working_set_bytes{id="/"}',
    },
    "allocatableMemory.available": c.podsCgroupLimit
      ? {
          source: "exact",
          from: "cAdvisor container_spec_memory_limit_bytes and working set of the pods cgroup",
        }
      : { source: "missing", from: "no container_spec_memory_limit_bytes for the pods cgroup" },
    "nodefs.available": c.nodefs
      ? { source: "approximate", from: fsFrom("/") }
      : { source: "missing", from: "no node-exporter filesystem series for the node's root" },
    "nodefs.inodesFree": c.nodefs
      ? { source: "approximate", from: fsFrom("/") }
      : { source: "missing", from: "no node-exporter filesystem series for the node's root" },
    "imagefs.available": c.imagefs
      ? { source: "approximate", from: "node-exporter, the image store's own mount" }
      : c.nodefs
        ? { source: "approximate", from: "node-exporter: no mount of its own, so the root filesystem's" }
        : { source: "missing", from: "no node-exporter filesystem series" },
    "pid.available": c.pids
      ? { source: "approximate", from: "node-exporter node_processes_pids and node_processes_max_processes" }
      : { source: "missing", from: "node-exporter's processes collector is off (the default)" },
    "pod memory": {
      source: "exact",
      from: "cAdvisor container_memory_working_set_bytes per pod and container",
    },
    "pod ephemeral-storage": {
      source: "missing",
      from: "not exported by the kubelet, cAdvisor or node-exporter",
    },
    "pod processes": { source: "missing", from: "cAdvisor container_processes is off by default" },
    "pod QoS class": c.qosClass
      ? { source: "exact", from: "kube-state-metrics kube_pod_status_qos_class" }
      : { source: "approximate", from: "computed from requests and limits (no kube_pod_status_qos_class)" },
    "pod requests and limits": c.requests
      ? { source: "exact", from: "kube-state-metrics kube_pod_container_resource_{requests,limits}" }
      : {
          source: "missing",
          from: "no kube_pod_container_resource_requests: every pod replays as BestEffort",
        },
    "pod priority": {
      source: "approximate",
      from: "kube-state-metrics kube_pod_info priority_class, valued by the built-in classes and --priority-class",
    },
    "pod termination grace period": { source: "missing", from: "not exported: the API's default, 30 s" },
  };
}
