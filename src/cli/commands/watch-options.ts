/**
 * `evictd watch`'s own options, checked before anything is contacted: every bad value, and every
 * option that means nothing without another, is reported at once with the option's name. What
 * they say becomes the operator's choices runWatch takes: the enforce mode and how it asks before
 * an eviction, the loop's period, the address served, and the files written.
 */
import type { EnforceMode } from "../../app/cluster/cluster-pods.js";
import { evictionPreflightFor } from "../../app/cluster/eviction-preflight-default.js";
import type { Issue } from "../../core/issues.js";
import { TIMER_MAX_MS } from "../../core/time/timer-limit.js";
import { InputError } from "../../errors.js";
import type { ConnectClusterNodeOptions } from "../../kubernetes/index.js";
import {
  connectOptions,
  durationOption,
  listenOption,
  outputPathIssue,
  type ClusterCliOptions,
} from "./cluster-options.js";
import { checkNodeLocalOptions, type NodeLocalCliOptions } from "./node-local-options.js";

export interface WatchCliOptions extends ClusterCliOptions, NodeLocalCliOptions {
  readonly enforce: boolean;
  readonly useEvictionApi: boolean;
  /** `--eviction-preflight` / `--no-eviction-preflight`; undefined: the mode's default. */
  readonly evictionPreflight?: boolean;
  /** `--eviction-dry-run`. */
  readonly evictionDryRun?: boolean;
  readonly evictionRequest?: boolean;
  readonly interval: string;
  readonly listen: string;
  readonly decisionLog?: string;
  readonly record?: string;
  readonly fullSummaries?: boolean;
}

/** What the operator chose for a watch: how it acts, how often it looks, what it serves and writes. */
export interface WatchChoices {
  readonly mode: EnforceMode;
  /**
   * Enforce modes: a pod its budget protects is skipped for the next one (the eviction's refusal
   * says so through the Eviction API, a dry run first with deletion).
   */
  readonly preflight?: boolean;
  /** Eviction API mode with the preflight: a dry run before every pressure eviction all the same. */
  readonly dryRunFirst?: boolean;
  /** Eviction API mode: soft-threshold evictions as EvictionRequests where the API serves them. */
  readonly evictionRequests?: boolean;
  /** The loop's period (the kubelet's housekeeping interval is 10 s). */
  readonly intervalMs: number;
  readonly listen: { readonly host: string; readonly port: number };
  /** A KubeletConfiguration file to use instead of the node's configz. */
  readonly configFile?: string;
  /** Write the decision log (replay step records, one per synchronize) here. */
  readonly decisionLog?: string;
  /** Write a replayable JSONL trace of every sample the loop acted on here. */
  readonly recordTo?: string;
  /** The trace keeps whole Summaries instead of what the engine reads (`--full-summaries`). */
  readonly fullSummaries?: boolean;
}

const ONLY_WITH_ENFORCE = "only means something with --enforce (shadow mode evicts nothing)";

/** How to reach the node, and the choices; throws an InputError listing every problem. */
export function parseWatchOptions(opts: WatchCliOptions): {
  connect: ConnectClusterNodeOptions;
  choices: WatchChoices;
} {
  const issues: Issue[] = [];
  const invalid = (path: string, message: string): void => {
    issues.push({ severity: "error", path, code: "invalid", message });
  };
  const connect = connectOptions(opts, issues);
  const intervalMs = durationOption("--interval", opts.interval, issues, 100, TIMER_MAX_MS);
  const listen = listenOption(opts.listen, issues);
  if (opts.useEvictionApi && !opts.enforce) invalid("--use-eviction-api", ONLY_WITH_ENFORCE);
  if (opts.evictionPreflight !== undefined && !opts.enforce)
    invalid(opts.evictionPreflight ? "--eviction-preflight" : "--no-eviction-preflight", ONLY_WITH_ENFORCE);
  if (
    opts.evictionDryRun === true &&
    !(opts.enforce && opts.useEvictionApi && opts.evictionPreflight !== false)
  )
    invalid(
      "--eviction-dry-run",
      "needs --enforce --use-eviction-api with the preflight (deletion always asks with a dry run; without the preflight nothing is asked)",
    );
  if (opts.evictionRequest === true && !(opts.enforce && opts.useEvictionApi))
    invalid(
      "--eviction-request",
      "needs --enforce --use-eviction-api: an EvictionRequest ends in the Eviction API, and hard evictions and the fallback go through it",
    );
  checkNodeLocalOptions(opts, issues);
  if (opts.decisionLog !== undefined) outputPathIssue("--decision-log", opts.decisionLog, issues);
  if (opts.record !== undefined) outputPathIssue("--record", opts.record, issues);
  if (issues.length > 0) throw new InputError(issues);

  const mode: EnforceMode = !opts.enforce ? "shadow" : opts.useEvictionApi ? "eviction-api" : "delete";
  return {
    connect,
    choices: {
      mode,
      preflight: evictionPreflightFor(mode, opts.evictionPreflight),
      ...(opts.evictionDryRun === true ? { dryRunFirst: true } : {}),
      ...(opts.evictionRequest === true ? { evictionRequests: true } : {}),
      intervalMs,
      listen,
      ...(opts.config !== undefined ? { configFile: opts.config } : {}),
      ...(opts.decisionLog !== undefined ? { decisionLog: opts.decisionLog } : {}),
      ...(opts.record !== undefined ? { recordTo: opts.record } : {}),
      ...(opts.fullSummaries === true ? { fullSummaries: true } : {}),
    },
  };
}
