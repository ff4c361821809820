/**
 * Kernel memory charged to a cgroup, from its cgroup v2 `memory.stat`: the part of a node's memory
 * the kubelet's root working set (`anon + file − inactive_file`) never sees.
 *
 * What the kernel's Documentation/admin-guide/cgroup-v2.rst says the fields count:
 * - `kernel` (Linux 5.18 on): "Amount of total kernel memory, including (kernel_stack, pagetables,
 *   percpu, vmalloc, slab) in addition to other kernel memory use cases". It is the v2 twin of v1's
 *   `memory.kmem.usage_in_bytes`: every allocation charged with __GFP_ACCOUNT, so also what has no
 *   field of its own (io_uring, pipe buffers, bpf ring buffers, KVM's vCPU pages...). Socket buffers
 *   (`sock`, "memory used in network transmission buffers") are NOT in it: the kernel charges them
 *   to the cgroup apart from its kmem counter, so they are added here.
 * - Before 5.18 there is no total, and the fields that exist are added up: `slab` (itself
 *   `slab_reclaimable + slab_unreclaimable`, which stand in for it on kernels before 5.9 that lack
 *   the sum; never both, or slab would count twice), `kernel_stack`, `pagetables`, `percpu` (5.9
 *   on), `vmalloc` (5.14 on) and `sock`, each where the kernel writes it. That under-counts what
 *   `kernel` would say by the allocations without a field of their own.
 *
 * At the root cgroup these count what the kernel charged to the cgroups below it (a process in
 * the root cgroup charges nothing, and allocations made without __GFP_ACCOUNT are charged to no
 * cgroup): on a node where every process runs in a cgroup (systemd, the kubelet's pods) that is
 * nearly all of it, never more than /proc/meminfo's kernel lines.
 */

/** A `memory.stat` file, field name → value in bytes. */
export type MemoryStatFields = ReadonlyMap<string, bigint>;

export interface KernelMemory {
  readonly bytes: bigint;
  /** Which figures were added up, for the reader: `kernel + sock`, `memory.kmem.usage_in_bytes`. */
  readonly from: string;
}

/** The fields added up when `memory.stat` has no `kernel` total (kernels before 5.18), in the order shown. */
const FIELDS_BEFORE_KERNEL_TOTAL = ["kernel_stack", "pagetables", "percpu", "vmalloc", "sock"] as const;

/**
 * Kernel memory from a cgroup v2 `memory.stat`: `kernel + sock`, or before Linux 5.18 the sum of
 * the kernel-memory fields it has (see the file's comment). Undefined when it has none of them
 * (a v1 `memory.stat`, which has no kernel-memory field at all).
 */
export function kernelMemoryFromStat(stat: MemoryStatFields): KernelMemory | undefined {
  const parts: [string, bigint][] = [];
  const add = (name: string): void => {
    const value = stat.get(name);
    if (value !== undefined) parts.push([name, value]);
  };
  if (stat.has("kernel")) {
    add("kernel");
    add("sock");
  } else {
    const reclaimable = stat.get("slab_reclaimable");
    const unreclaimable = stat.get("slab_unreclaimable");
    if (stat.has("slab")) add("slab");
    else if (reclaimable !== undefined && unreclaimable !== undefined)
      parts.push(["slab_reclaimable + slab_unreclaimable", reclaimable + unreclaimable]);
    for (const name of FIELDS_BEFORE_KERNEL_TOTAL) add(name);
  }
  if (parts.length === 0) return undefined;
  return {
    bytes: parts.reduce((sum, [, value]) => sum + value, 0n),
    from: parts.map(([name]) => name).join(" + "),
  };
}
