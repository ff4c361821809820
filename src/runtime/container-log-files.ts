/**
 * The files of one container's log, as the kubelet's container log manager names them: the live
 * `<container>.log`, rotated copies `<container>.log.<YYYYMMDD-HHMMSS>` (UTC here; another
 * rotation within that second gets `-1`, `-2`…, so that names keep the rotations' order),
 * compressed `….gz`, and `….tmp` while a copy or a compression is being written. Every one of them is `<live>.<suffix>`, which is how the
 * stats collector counts them all towards the pod's ephemeral storage (`isLogOf`).
 */
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoCode } from "../errors.js";

export const COMPRESSED_SUFFIX = ".gz";
export const TEMPORARY_SUFFIX = ".tmp";

/** One rotated (or temporary) file of a live log. */
export interface RotatedLog {
  readonly path: string;
  /** `<YYYYMMDD-HHMMSS>` or `<YYYYMMDD-HHMMSS>-<n>`: the rotation it came from. */
  readonly stem: string;
  readonly compressed: boolean;
  /** Left by a rotation or compression that did not finish. */
  readonly temporary: boolean;
  /** Orders the rotations oldest first. */
  readonly order: readonly [string, number];
}

const ROTATED = /^(\d{8}-\d{6})(?:-([1-9]\d*))?(\.gz)?(\.tmp)?$/;

/** The rotation stamp of a time, as the kubelet formats it (`20060102-150405`), in UTC. */
export function rotationStamp(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number): string => String(n).padStart(2, "0");
  return (
    `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}-` +
    `${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`
  );
}

/** The rotated and temporary files of `live`, oldest rotation first; other `<live>.*` files are left out. */
export async function rotatedLogs(live: string): Promise<RotatedLog[]> {
  const dir = dirname(live);
  const prefix = `${basename(live)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if (errnoCode(e) === "ENOENT" || errnoCode(e) === "ENOTDIR") return [];
    throw e;
  }
  const out: RotatedLog[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = ROTATED.exec(name.slice(prefix.length));
    if (m === null) continue;
    const stamp = m[1] ?? "";
    const n = m[2] === undefined ? 0 : Number(m[2]);
    out.push({
      path: join(dir, name),
      stem: n === 0 ? stamp : `${stamp}-${n}`,
      compressed: m[3] !== undefined,
      temporary: m[4] !== undefined,
      order: [stamp, n],
    });
  }
  return out.sort((a, b) =>
    a.order[0] !== b.order[0]
      ? a.order[0] < b.order[0]
        ? -1
        : 1
      : a.order[1] - b.order[1] || Number(a.compressed) - Number(b.compressed),
  );
}

/**
 * A stem for a rotation at `epochMs` that orders after every file of `existing` (oldest first):
 * the time's stamp, or, when a rotation of that second (or a later one: the clock went back) is
 * already there, the newest stamp with the next number.
 */
export function freshStem(epochMs: number, existing: readonly RotatedLog[]): string {
  const stamp = rotationStamp(epochMs);
  const newest = existing.at(-1)?.order;
  if (newest === undefined || newest[0] < stamp) return stamp;
  return `${newest[0]}-${newest[1] + 1}`;
}
