/**
 * Where the test suites find things: the evictd checkout (from src or dist alike) and the
 * real-world data set kept in the repository (test/fixtures/real-data, sources in its SOURCES.md).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The nearest package.json named "evictd" above `start`. */
function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "evictd"
    )
      return dir;
    if (dirname(dir) === dir) throw new Error(`no evictd package.json above ${start}`);
  }
}

export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/** Real Summary API responses, pod lists and KubeletConfiguration files from public projects. */
export const REAL_DATA = join(REPO_ROOT, "test", "fixtures", "real-data");
