#!/usr/bin/env -S node --max-semi-space-size=1
// V8 grows a young generation of up to 2 × 16 MiB for a process that allocates steadily, as the
// daemon does once a second; with 1 MiB semi-spaces `evictd run` at 100 idle pods holds ~15 MiB
// less (bench/overhead-bench.ts) and replay runs as fast (bench/replay-bench.ts). deploy/Dockerfile
// and the test harness start node with the same flags.
import { main } from "../dist/src/cli/main.js";
process.exitCode = await main(process.argv.slice(2));
