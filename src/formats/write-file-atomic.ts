/**
 * Writes a file whole or not at all: a temp file beside it, fsync, rename over, fsync of the
 * directory (so the rename itself survives a crash). On any failure (ENOSPC at any byte, EIO) the
 * temp file is removed and the file is as it was: the old content or the new, never part of either.
 * Pod status files, replay reports and the fleet comparison's outputs are written this way.
 */
import { mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

let sequence = 0;

/** The prefix of the temp files {@link writeFileAtomic} writes beside `file`. */
export function tempFilePrefix(file: string): string {
  return `${file}.tmp-`;
}

/** Writes `data` to `file` atomically (creating its directory when missing). */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${tempFilePrefix(file)}${process.pid}-${++sequence}`;
  try {
    const handle = await open(temp, "w", 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  const dir = await open(dirname(file), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
