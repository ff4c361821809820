/**
 * Which filesystem layout a summary describes (single, dedicated imagefs, split image/container fs),
 * for replays that do not name one: the replay-format rule built on upstream's stats equality check.
 */
import type { FilesystemLayout, FsStats, NodeSummary } from "../model.js";

/**
 * Fields compared to tell two filesystems apart: the ones upstream's `equalFileSystems`
 * (pkg/kubelet/stats/provider.go) compares. `usedBytes` is left out there too, because each view
 * reports only its own usage (images, container layers) on what may be the same device.
 */
const IDENTITY_FIELDS = ["availableBytes", "capacityBytes", "inodesUsed", "inodesFree", "inodes"] as const;

/**
 * replay-format.md: `split` if `runtime.containerFs` is reported and differs from `runtime.imageFs`,
 * `dedicated` if `runtime.imageFs` differs from `node.fs`, else `single`.
 *
 * Missing data:
 * - No `runtime.imageFs`: `single`. There is nothing that shows a second filesystem (and no imagefs
 *   signal can be observed), so the node is treated like one whose runtime shares the root fs; a
 *   reported `containerFs` alone does not make it split.
 * - `imageFs` reported but `node.fs` not: `dedicated`, as upstream's check says "different" when one
 *   side is nil.
 * - A field missing on both sides counts as equal, present on one side only as different (upstream
 *   compares the pointers with `ptr.Equal`).
 *
 * Note the upstream kubelet decides "dedicated" from device numbers first, then compares imageFs with
 * containerFs, not with node.fs; replay only has the summary, hence this rule. Because imageFs
 * `inodesUsed` counts image inodes only, real single-disk nodes usually come out `dedicated` here.
 */
export function detectFilesystemLayout(summary: NodeSummary): FilesystemLayout {
  const imageFs = summary.node.runtime?.imageFs;
  if (imageFs === undefined) return "single";
  const containerFs = summary.node.runtime?.containerFs;
  if (containerFs !== undefined && !sameFilesystem(containerFs, imageFs)) return "split";
  return summary.node.fs !== undefined && sameFilesystem(imageFs, summary.node.fs) ? "single" : "dedicated";
}

/** Upstream's stats equality check over the identity fields. */
export function sameFilesystem(a: FsStats, b: FsStats): boolean {
  return IDENTITY_FIELDS.every((field) => a[field] === b[field]);
}
