/** Opens what `--stats cgroups` names: the kubelet's cgroup tree on this node and a memory reader over it. */
import { kubeletCgroupSettings } from "../../app/cluster/kubelet-cgroup-settings.js";
import { KubeletCgroupTree } from "../../linux/kubelet-cgroups/kubelet-cgroup-tree.js";
import { KubeletMemoryReader } from "../../linux/kubelet-cgroups/kubelet-memory-reader.js";
import type { NodeLocalCliOptions } from "./node-local-options.js";

/**
 * Whether these options need the kubelet's configz for its cgroups: `--stats cgroups` without both
 * `--cgroup-driver` and `--cgroup-root` (the one left out comes from configz).
 */
export function cgroupsNeedConfigz(opts: NodeLocalCliOptions): boolean {
  return opts.stats === "cgroups" && (opts.cgroupDriver === undefined || opts.cgroupRoot === undefined);
}

/**
 * The kubelet's cgroup tree on this node and a memory reader over it: driver and root as given,
 * else from `configz`, the kubelet's configuration the command read once at start (needed exactly
 * when {@link cgroupsNeedConfigz}; the command's thresholds come from the same object).
 */
export function openKubeletCgroups(
  opts: NodeLocalCliOptions,
  configz: unknown,
): { tree: KubeletCgroupTree; memory: KubeletMemoryReader } {
  let driver = opts.cgroupDriver as "cgroupfs" | "systemd" | undefined;
  let cgroupRoot = opts.cgroupRoot;
  if (driver === undefined || cgroupRoot === undefined) {
    // Its defaults (cgroupfs, "/") would name some other cgroups: configz was not read.
    if (configz === undefined) throw new Error("the kubelet's cgroup settings need its configz, not read");
    const fromConfigz = kubeletCgroupSettings(configz);
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
