/**
 * The kubelet's pod cgroups on this node, found on the cgroup filesystem: which interface it speaks,
 * where the node's and the kubepods cgroup's memory directories are, and which directory holds
 * each pod (by UID) and each of its containers (by container id). The kubelet's layout is named in
 * kubelet-cgroup-names; this module only lists directories, synchronously (cgroupfs is generated
 * from kernel memory: a listing of a few hundred entries costs well under a millisecond).
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { AdapterError, errnoCode } from "../../errors.js";
import {
  containerIdOfDir,
  kubepodsPath,
  podUidOfDir,
  qosTierPaths,
  type KubeletCgroupDriver,
} from "./kubelet-cgroup-names.js";

export interface KubeletCgroupTreeOptions {
  /**
   * Where the cgroup filesystem is mounted: `/sys/fs/cgroup` on the node, or the host's tree
   * mounted into a pod (`/host/sys/fs/cgroup`), whose view is not limited by a cgroup namespace.
   */
  readonly cgroupfs: string;
  readonly driver: KubeletCgroupDriver;
  /** The kubelet's `cgroupRoot` (default "/"). */
  readonly cgroupRoot: string;
  /**
   * The node's own cgroup, relative to the hierarchy's root: "" or "/" for the root cgroup (the
   * machine, what the kubelet measures `memory.available` on). A nested node (a node in a
   * container, or a test) names its subtree; kubepods is then looked for below it.
   */
  readonly nodeCgroup?: string;
}

/** One pod's cgroup: its directory and its containers' directories by container id. */
export interface KubeletPodCgroup {
  readonly uid: string;
  readonly dir: string;
  readonly containers: ReadonlyMap<string, string>;
}

/** Lists a directory's subdirectories; [] when it does not exist (a pod that just went). */
function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw new AdapterError("cgroup-io", `cannot list ${dir}: ${code ?? String(error)}`, { cause: error });
  }
}

export class KubeletCgroupTree {
  readonly api: "v1" | "v2";
  /** The memory hierarchy's root directory. */
  readonly memoryRoot: string;
  /** The node cgroup's memory directory. */
  readonly nodeDir: string;
  /** Whether the node cgroup is the hierarchy's root (v2's root has no memory.current). */
  readonly nodeIsRoot: boolean;
  /** The kubepods cgroup's memory directory. */
  readonly kubepodsDir: string;
  readonly #tierDirs: readonly string[];
  readonly options: KubeletCgroupTreeOptions;

  constructor(options: KubeletCgroupTreeOptions) {
    this.options = options;
    const root = options.cgroupfs;
    if (existsSync(path.join(root, "cgroup.controllers"))) {
      this.api = "v2";
      this.memoryRoot = root;
    } else if (existsSync(path.join(root, "memory", "memory.usage_in_bytes"))) {
      this.api = "v1";
      this.memoryRoot = path.join(root, "memory");
    } else {
      throw new AdapterError(
        "cgroup-not-found",
        `no memory cgroup hierarchy at ${root}: neither cgroup.controllers (v2) nor memory/memory.usage_in_bytes (v1) is there`,
        { hint: "mount the host's /sys/fs/cgroup (read-only) and pass its path with --cgroupfs" },
      );
    }
    const node = (options.nodeCgroup ?? "").replace(/^\/+|\/+$/g, "");
    this.nodeIsRoot = node === "";
    this.nodeDir = path.join(this.memoryRoot, node);
    this.kubepodsDir = path.join(this.nodeDir, kubepodsPath(options.driver, options.cgroupRoot));
    this.#tierDirs = qosTierPaths(options.driver, options.cgroupRoot).map((p) => path.join(this.nodeDir, p));
    if (!existsSync(this.kubepodsDir)) {
      throw new AdapterError(
        "cgroup-not-found",
        `the kubelet's kubepods cgroup is not at ${this.kubepodsDir} (cgroupDriver ${options.driver}, cgroupRoot ${JSON.stringify(options.cgroupRoot)})`,
        {
          hint: "check the kubelet's cgroupDriver and cgroupRoot (configz), or set them with --cgroup-driver and --cgroup-root; a kubelet whose tree sits under a parent cgroup (kind, a node in a container) needs --node-cgroup PARENT",
        },
      );
    }
  }

  /**
   * Every pod cgroup below kubepods and its tiers, by UID, with its containers. With `known` (the
   * last scan), a pod found in the same directory keeps its containers as they were, so only new
   * pods' directories are listed: three listings instead of one per pod, for a memory wake that
   * meets a pod it has not seen. A full scan (housekeeping) lists them all.
   */
  scan(known?: ReadonlyMap<string, KubeletPodCgroup>): Map<string, KubeletPodCgroup> {
    const pods = new Map<string, KubeletPodCgroup>();
    for (const parent of [this.kubepodsDir, ...this.#tierDirs]) {
      for (const name of subdirectories(parent)) {
        const uid = podUidOfDir(name);
        if (uid === undefined) continue;
        const dir = path.join(parent, name);
        const previous = known?.get(uid);
        if (previous !== undefined && previous.dir === dir) {
          pods.set(uid, previous);
          continue;
        }
        const containers = new Map<string, string>();
        for (const child of subdirectories(dir)) {
          const id = containerIdOfDir(child);
          if (id !== undefined) containers.set(id, path.join(dir, child));
        }
        pods.set(uid, { uid, dir, containers });
      }
    }
    return pods;
  }
}
