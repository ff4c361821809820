/** Opens what `--stats cgroups` names: the kubelet's cgroup tree on this node and a memory reader over it. */
import { kubeletCgroupSettings } from "../../app/cluster/kubelet-cgroup-settings.js";
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import { KubeletCgroupTree } from "../../linux/kubelet-cgroups/kubelet-cgroup-tree.js";
import { KubeletMemoryReader } from "../../linux/kubelet-cgroups/kubelet-memory-reader.js";
import type { NodeLocalCliOptions } from "./node-local-options.js";

/** The kubelet's cgroup tree on this node and a memory reader over it (driver and root from configz unless given). */
export async function openKubeletCgroups(
  api: ClusterNodePort,
  opts: NodeLocalCliOptions,
): Promise<{ tree: KubeletCgroupTree; memory: KubeletMemoryReader }> {
  let driver = opts.cgroupDriver as "cgroupfs" | "systemd" | undefined;
  let cgroupRoot = opts.cgroupRoot;
  if (driver === undefined || cgroupRoot === undefined) {
    const fromConfigz = kubeletCgroupSettings(await api.kubeletConfig());
    driver ??= fromConfigz.driver;
    cgroupRoot ??= fromConfigz.cgroupRoot;
  }
  const tree = new KubeletCgroupTree({
    cgroupfs: opts.cgroupfs,
    driver,
    cgroupRoot,
    nodeCgroup: opts.nodeCgroup,
  });
  return { tree, memory: new KubeletMemoryReader(tree) };
}
