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
 * Filesystem-wide figures: the same on every view of one filesystem. `inodesUsed` and `usedBytes`
 * are per view (imageFs counts only image inodes and bytes), so they cannot tell two devices apart.
 */
const DEVICE_FIELDS = ["availableBytes", "capacityBytes", "inodesFree", "inodes"] as const;

/**
 * The replay-format rule: `split` if `runtime.containerFs` is reported and differs from
 * `runtime.imageFs` (upstream's stats equality check), `dedicated` if `runtime.imageFs` is on
 * another filesystem than `node.fs`, else `single`.
 *
 * Upstream decides "dedicated" from device numbers, which a summary does not carry. Comparing
 * imageFs with node.fs on every field would call most real single-disk nodes dedicated (their
 * imageFs `inodesUsed` counts image inodes only), so the comparison uses the filesystem-wide
 * figures alone: two views of one filesystem report the same capacity, free bytes and inodes.
 *
 * Missing data:
 * - No `runtime.imageFs`: `single`. Nothing shows a second filesystem (and no imagefs signal can be
 *   observed); a reported `containerFs` alone does not make it split.
 * - `imageFs` reported but `node.fs` not: `dedicated`, as upstream's check says "different" when one
 *   side is nil.
 * - A field missing on both sides counts as equal, present on one side only as different (upstream
 *   compares the pointers with `ptr.Equal`).
 */
export function detectFilesystemLayout(summary: NodeSummary): FilesystemLayout {
  const imageFs = summary.node.runtime?.imageFs;
  if (imageFs === undefined) return "single";
  const containerFs = summary.node.runtime?.containerFs;
  if (containerFs !== undefined && !sameFilesystem(containerFs, imageFs)) return "split";
  const nodeFs = summary.node.fs;
  return nodeFs !== undefined && DEVICE_FIELDS.every((f) => imageFs[f] === nodeFs[f])
    ? "single"
    : "dedicated";
}

/** Upstream's stats equality check (imageFs vs containerFs) over the identity fields. */
export function sameFilesystem(a: FsStats, b: FsStats): boolean {
  return IDENTITY_FIELDS.every((field) => a[field] === b[field]);
}
