/**
 * Rotates one container's log as the kubelet's container log manager does (`rotateLog`), once it
 * has reached `containerLogMaxSize`: files left by an interrupted rotation are removed, the oldest
 * rotated files go until `containerLogMaxFiles − 2` are left, the rotated files are compressed
 * but the newest, and the live log becomes the newest rotated file. So a container has at most
 * `containerLogMaxFiles` files, the live one included.
 *
 * The last step differs: the kubelet renames the live log and has the runtime's shim reopen it
 * (`ReopenContainerLog`); here the container's own process writes its log through a descriptor
 * it keeps, and the daemon never sees the bytes. So the live log is copied, then truncated
 * ("copytruncate"): the writer opened it `O_APPEND`, and its next write lands at the new end.
 * Piping the output through the daemon instead would cost the main thread a copy of every byte a
 * pod writes, and would break every container's stdout at a daemon restart (pods outlive the
 * daemon and are adopted by the next one). The bulk of the copy runs on libuv's pool; the last
 * bytes, the rename and the truncation are one synchronous step, so what a container writes in
 * between is lost only in the instant of that step, as with logrotate's copytruncate. Copying
 * needs room for one live log: on a full disk the rotation fails (nothing is lost or left) and is
 * tried again at the next look, while the old files it removed have already made room.
 */
import {
  createReadStream,
  createWriteStream,
  fstatSync,
  ftruncateSync,
  readSync,
  renameSync,
  writeSync,
} from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import type { ContainerLogPolicy } from "../core/config/container-log-settings.js";
import { errnoCode } from "../errors.js";
import {
  COMPRESSED_SUFFIX,
  freshStem,
  rotatedLogs,
  TEMPORARY_SUFFIX,
  type RotatedLog,
} from "./container-log-files.js";

/** What one look at a live log did. */
export type RotationResult =
  | { readonly rotated: false }
  | {
      readonly rotated: true;
      readonly to: string;
      readonly bytes: number;
      readonly removed: readonly string[];
    };

/** Bytes copied per read while catching up with the writer. */
const COPY_CHUNK = 1024 * 1024;
/** What is left for the synchronous last step: once the copy is this close to the writer, it stops. */
const CATCH_UP_BYTES = 64 * 1024;
/** Passes of the asynchronous copy after a writer that keeps ahead; the last step then copies the rest. */
const MAX_CATCH_UP_PASSES = 8;

/** Rotates `live` when it has reached `policy.maxBytes` (never when rotation is off or it is empty). */
export async function rotateContainerLog(
  live: string,
  policy: ContainerLogPolicy,
  nowMs: number,
): Promise<RotationResult> {
  if (policy.maxBytes < 0) return { rotated: false };
  let size: number;
  try {
    size = (await stat(live)).size;
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return { rotated: false };
    throw e;
  }
  if (size === 0 || size < policy.maxBytes) return { rotated: false };

  const removed: string[] = [];
  const remove = async (path: string): Promise<void> => {
    await rm(path, { force: true });
    removed.push(path);
  };
  // Left by a rotation that stopped half-way: temporary files, and a copy already compressed.
  let rotated = await rotatedLogs(live);
  const compressedStems = new Set(rotated.filter((r) => r.compressed && !r.temporary).map((r) => r.stem));
  for (const r of rotated)
    if (r.temporary || (!r.compressed && compressedStems.has(r.stem))) await remove(r.path);
  rotated = rotated.filter((r) => !removed.includes(r.path));
  // The live log and the one about to be rotated leave room for maxFiles − 2 older ones.
  const excess = rotated.length - Math.max(0, policy.maxFiles - 2);
  for (const r of rotated.slice(0, Math.max(0, excess))) await remove(r.path);
  rotated = rotated.slice(Math.max(0, excess));
  for (const r of rotated) if (!r.compressed) await compress(r);

  const to = `${live}.${freshStem(nowMs, await rotatedLogs(live))}`;
  const bytes = await copyTruncate(live, to);
  return { rotated: true, to, bytes, removed };
}

/** `<file>` → `<file>.gz` through `<file>.tmp`, then `<file>` removed (the kubelet's `compressLog`). */
async function compress(r: RotatedLog): Promise<void> {
  const tmp = `${r.path}${TEMPORARY_SUFFIX}`;
  try {
    // zlib loads with the first compression: a daemon whose logs never rotate does not carry it.
    const { createGzip } = await import("node:zlib");
    await pipeline(createReadStream(r.path), createGzip(), createWriteStream(tmp, { mode: 0o644 }));
    await rename(tmp, `${r.path}${COMPRESSED_SUFFIX}`);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  await rm(r.path, { force: true });
}

/** Copies `live` to `to` (through `to.tmp`) and truncates it; returns the bytes moved. */
async function copyTruncate(live: string, to: string): Promise<number> {
  const tmp = `${to}${TEMPORARY_SUFFIX}`;
  // Read-write only to truncate it: nothing is written through this descriptor.
  const source = await open(live, "r+");
  let target;
  try {
    target = await open(tmp, "wx", 0o644);
  } catch (e) {
    await source.close();
    throw e;
  }
  let copied = 0;
  let done = false;
  try {
    const buffer = Buffer.allocUnsafe(COPY_CHUNK);
    for (let pass = 0; pass < MAX_CATCH_UP_PASSES; pass++) {
      const size = (await source.stat()).size;
      if (size - copied <= CATCH_UP_BYTES) break;
      while (copied < size) {
        const { bytesRead } = await source.read(buffer, 0, Math.min(COPY_CHUNK, size - copied), copied);
        if (bytesRead === 0) break;
        await writeFully(target, buffer.subarray(0, bytesRead));
        copied += bytesRead;
      }
    }
    // One synchronous step from the last read to the truncation: no write of ours in between.
    const end = fstatSync(source.fd).size;
    const rest = Buffer.allocUnsafe(Math.max(0, Math.min(COPY_CHUNK, end - copied)));
    while (copied < end) {
      const n = readSync(source.fd, rest, 0, Math.min(rest.length, end - copied), copied);
      if (n === 0) break;
      let written = 0;
      while (written < n) written += writeSync(target.fd, rest, written, n - written);
      copied += n;
    }
    renameSync(tmp, to);
    done = true;
    ftruncateSync(source.fd, 0);
    return copied;
  } catch (e) {
    // Before the rename nothing changed but the temporary file; after it, the copy is whole and
    // the live log merely still holds it too (truncated at the next rotation).
    if (!done) await rm(tmp, { force: true });
    throw e;
  } finally {
    await target.close();
    await source.close();
  }
}

async function writeFully(handle: Awaited<ReturnType<typeof open>>, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}
