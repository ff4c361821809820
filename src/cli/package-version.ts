/**
 * evictd's version, from its package.json: the nearest one named "evictd" above this module, which
 * is three levels up from the compiled module (dist/src/cli/) and two from the source (src/cli/).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === "evictd" && typeof manifest.version === "string") return manifest.version;
    } catch {
      // No package.json here (or not ours): look further up.
    }
    if (dirname(dir) === dir) return "unknown";
  }
}
