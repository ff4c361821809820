/**
 * Where the test suites find things: the evictd checkout (from src or dist alike) and the shared
 * real-world data set that sits beside it (read-only, not part of the repository).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The nearest package.json named "evictd" above `start`. */
function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "evictd") return dir;
    if (dirname(dir) === dir) throw new Error(`no evictd package.json above ${start}`);
  }
}

export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/** The shared data set: `../shared/data` beside the checkout. */
export const SHARED_DATA = resolve(REPO_ROOT, "..", "shared", "data");

/** Why the suites built on the shared data cannot run, or false (printed once per file when skipping). */
export const SHARED_DATA_SKIP: string | false = existsSync(join(SHARED_DATA, "summary-1.json"))
  ? false
  : `the shared data set is not beside this checkout (${SHARED_DATA})`;
if (SHARED_DATA_SKIP !== false) console.error(`# skipped: ${SHARED_DATA_SKIP}`);
