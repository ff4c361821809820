#!/usr/bin/env node
// Bundles the command line (dist/src/cli/main.js and the command modules it imports on demand)
// into dist/cli/, one chunk per command plus the chunks they share. `bin/evictd.js` loads it.
//
// Why: Node keeps a module record, its source and its URL bookkeeping for every ES module it
// loads. `evictd run` loads some 200 of ours; as a handful of chunks the daemon holds ~10 MiB
// less (bench:overhead). Dependencies stay external (loaded from node_modules as before), the
// output is not minified (stack traces keep their names), and a command still loads only its
// own chunks: the Kubernetes client is imported by the cluster commands alone.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "cli");
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, "dist", "src", "cli", "main.js")],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
