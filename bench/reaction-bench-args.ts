/**
 * The reaction benchmark's command line (reaction-bench.ts): `evictd run`'s trials, or with
 * `--mode cluster` `evictd watch`'s (cluster-reaction-bench.ts). Kept apart from the bench so the
 * values a command line gives can be checked without running either.
 */
import path from "node:path";
import type { BenchArgs } from "./bench-args.js";
import { existsSync } from "node:fs";
import {
  CURRENT,
  type ClusterArgs,
  type HogSetting,
  type Placement,
  type Variant,
} from "./cluster-reaction-bench.js";
import type { Touch } from "./ramp-pod.js";

/** How `evictd run` is woken in a trial: memcg threshold notifications, or the housekeeping tick alone. */
export type Mode = "notify" | "poll";

/** The pods of the small node: four residents and the ramp pod. */
export const BASE_PODS = 5;

export interface NodeReactionArgs {
  readonly pods: number[];
  readonly rates: number[];
  readonly trials: number;
  readonly modes: Mode[];
  readonly touch: Touch;
  /** Concurrent HTTP clients on /status and /metrics during the trials (0: none). */
  readonly httpClients: number;
  /** Where the results go (absolute); undefined: bench/results/reaction.json or reaction-http.json. */
  readonly out?: string;
}

export const REACTION_USAGE = `usage: node dist/bench/reaction-bench.js [--pods 5,110] [--rates 512,1024,2048] [--trials 20]
         [--modes notify,poll] [--touch populate|write] [--http-clients N] [--out FILE]
       node dist/bench/reaction-bench.js --mode cluster [--pods 5,110] [--rates 512,1024,2048]
         [--trials 20] [--summary-trials 5] [--driver cgroupfs|systemd] [--placement pod|outside]
         [--hog [on|off|both]] [--baseline DIR] [--dry-run-first [on|off|both]] [--out FILE]

  --summary-trials 0   no trials of --stats summary
  --placement pod      evictd in a DaemonSet pod of its own on the node (default); outside: beside the node
  --hog                a BestEffort pod running stress-ng --cpu 1 through each configuration;
                       --hog both runs each configuration without it, then with it
  --baseline DIR       each configuration first with the evictd of DIR (another checkout, built:
                       a before and after in one run), then with this one
  --dry-run-first      evictd with --eviction-dry-run (a dry run before each eviction, its former
                       path); both: each configuration with it, then without, in one run
  --out FILE           write the results there instead of bench/results/`;

export const REACTION_OPTIONS = {
  pods: "string",
  rates: "string",
  trials: "string",
  modes: "string",
  touch: "string",
  "http-clients": "string",
  mode: "string",
  "summary-trials": "string",
  driver: "string",
  placement: "string",
  hog: { bare: "on" },
  "dry-run-first": { bare: "on" },
  baseline: "string",
  out: "string",
} as const;

/** The command line: `evictd run`'s trials, or `evictd watch`'s (cluster-reaction-bench.ts). */
export type ReactionCommand =
  | { readonly bench: "node"; readonly args: NodeReactionArgs }
  | { readonly bench: "cluster"; readonly args: ClusterArgs };

/** What the command line asks for (errors noted on `a`, see bench-args.ts). */
export function readReactionArgs(a: BenchArgs<typeof REACTION_OPTIONS>): ReactionCommand {
  const pods = a.wholeNumbers("pods", [5, 110], BASE_PODS);
  const rates = a.wholeNumbers("rates", [512, 1024, 2048], 1);
  const trials = a.wholeNumber("trials", 20, 1);
  const rawOut = a.string("out");
  a.require(
    rawOut === undefined || rawOut.trim() !== "",
    `--out: a file name expected, got ${JSON.stringify(rawOut)}`,
  );
  const out = rawOut === undefined || rawOut.trim() === "" ? {} : { out: path.resolve(rawOut) };
  // `--mode` names the other bench this one runs: there is one.
  const mode = a.string("mode");
  const cluster = mode !== undefined;
  a.require(
    mode === undefined || mode === "cluster",
    `--mode: only "cluster" (evictd watch on a kubelet's node), got ${JSON.stringify(mode)}`,
  );
  const only = (names: readonly (keyof typeof REACTION_OPTIONS)[], when: string, ok: boolean): void => {
    for (const name of names) a.require(ok || !a.has(name), `--${name}: only ${when}`);
  };
  only(
    ["summary-trials", "driver", "placement", "hog", "dry-run-first", "baseline"],
    "with --mode cluster",
    cluster,
  );
  only(["modes", "touch", "http-clients"], "without --mode cluster", !cluster);
  if (cluster) {
    const hog = a.choice("hog", ["off", "on", "both"] as const, "off");
    const hogs: readonly HogSetting[] = hog === "both" ? [false, true] : [hog === "on"];
    const dryRun = a.choice("dry-run-first", ["off", "on", "both"] as const, "off");
    const baselineDir = a.string("baseline");
    const baselineBin = baselineDir === undefined ? undefined : path.resolve(baselineDir, "bin/evictd.js");
    a.require(
      baselineBin === undefined || existsSync(baselineBin),
      `--baseline: ${JSON.stringify(baselineDir)} holds no bin/evictd.js (a checkout of evictd, built)`,
    );
    const variants: Variant[] = [];
    if (baselineDir !== undefined && baselineBin !== undefined)
      variants.push({ name: `baseline ${path.basename(path.resolve(baselineDir))}`, bin: baselineBin });
    if (dryRun !== "off") variants.push({ name: "dry run first", dryRunFirst: true });
    if (dryRun !== "on") variants.push(CURRENT);
    return {
      bench: "cluster",
      args: {
        pods,
        rates,
        trials,
        summaryTrials: a.wholeNumber("summary-trials", 5, 0),
        driver: a.choice("driver", ["cgroupfs", "systemd"] as const, "cgroupfs"),
        placement: a.choice("placement", ["pod", "outside"] as const satisfies readonly Placement[], "pod"),
        hogs,
        variants,
        ...out,
      },
    };
  }
  return {
    bench: "node",
    args: {
      pods,
      rates,
      trials,
      modes: a.choices("modes", ["notify", "poll"] as const, ["notify", "poll"]),
      touch: a.choice("touch", ["populate", "write"] as const, "populate"),
      httpClients: a.wholeNumber("http-clients", 0),
      ...out,
    },
  };
}
