/** Bytes a file tree occupies on disk (allocated blocks, as `du` counts), without following symlinks. */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** 0 for a missing path; hard links are counted once per tree. */
export async function diskUsageBytes(path: string, seen: Set<string> = new Set()): Promise<number> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return 0;
  }
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return 0;
  seen.add(id);
  let total = st.blocks * 512;
  if (st.isDirectory()) {
    let entries: string[] = [];
    try {
      entries = await readdir(path);
    } catch {
      entries = [];
    }
    for (const entry of entries) total += await diskUsageBytes(join(path, entry), seen);
  }
  return total;
}
