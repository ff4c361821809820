/**
 * The `evictd` command line: parses argv, dispatches to lazily imported commands, and is the one
 * error boundary of the binary (input problems → exit 2 with one line each; bugs → exit 1).
 */
import type { ImportPrometheusCliOptions } from "./commands/import-prometheus.js";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { formatIssue } from "../core/issues.js";
import { TIMER_MAX_MS, TIMER_MAX_TEXT } from "../core/time/timer-limit.js";
import { scrubSecrets } from "../core/redact-secrets.js";
import { AdapterError } from "../errors.js";
import { EXIT, InputError } from "../errors.js";
import { withClusterOptions, type ClusterCliOptions } from "./commands/cluster-options.js";
import type { WatchCliOptions } from "./commands/watch.js";
import type { CompareCliOptions } from "./commands/compare.js";
import { withNodeLocalOptions, type NodeLocalCliOptions } from "./commands/node-local-options.js";
import { packageVersion } from "./package-version.js";
import { terminalSafe, terminalSafeLines } from "./output/terminal-text.js";

/**
 * `--seconds`: a positive, finite number (`abc`, `0` or `-5` is a usage error, not a 0 s demo), no
 * more than a timer holds. A longer demo is refused rather than clamped: nobody watches a demo for
 * 24 days, so such a value is a slip, and running something other than what was asked would hide it.
 */
function parseSeconds(text: string): number {
  const seconds = Number(text);
  if (text.trim() === "" || !Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError("expected a positive number of seconds, e.g. 30 or 2.5");
  if (seconds * 1000 > TIMER_MAX_MS)
    throw new InvalidArgumentError(
      `expected at most ${TIMER_MAX_MS / 1000} seconds (${TIMER_MAX_TEXT}, the longest a timer holds)`,
    );
  return seconds;
}

/** A repeatable option's values, in order. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function program(): Command {
  const cmd = new Command("evictd")
    .description("The kubelet's node-pressure eviction manager: replay, explain and enforce.")
    .version(packageVersion(), "-V, --version", "print evictd's version")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  cmd
    .command("replay")
    .description("Run the eviction engine over a scenario or recorded trace and print every decision")
    .argument("<scenario>", "scenario file (YAML, JSON or JSONL), or - for stdin")
    .option("-o, --output <format>", "jsonl | table (default: table on a terminal, else jsonl)")
    .option("--report <file>", "also write an HTML report (charts, decisions, configuration) to FILE")
    .option(
      "--what-if",
      "counterfactual: a pod the configuration evicts (or refuses) leaves the later samples' figures; pods the recording lost while this configuration kept them are marked diverged",
      false,
    )
    .option("--config <file>", "replay under this KubeletConfiguration instead of the scenario's")
    .option(
      "--set <field=value>",
      "change one eviction setting of the configuration, e.g. evictionHard.memory.available=1Gi (repeatable)",
      collect,
      [],
    )
    .action(
      async (
        scenario: string,
        opts: { output?: string; report?: string; whatIf: boolean; config?: string; set: string[] },
      ) => {
        const { replayCommand } = await import("./commands/replay.js");
        process.exitCode = await replayCommand(scenario, opts);
      },
    );

  const compare = cmd
    .command("compare")
    .description(
      "Which configuration should the fleet run? Replay many traces under many configurations (what-if) and compare",
    );
  /** The options every way of comparing shares: the configurations and how to judge them. */
  const variantOptions = (c: Command): Command =>
    c
      .option(
        "--config <file>",
        "a KubeletConfiguration to compare (repeatable: one configuration each)",
        collect,
        [],
      )
      .option("--base <file>", "the configuration the sweeps vary: a file, or `recorded` (each trace's own)")
      .option(
        "--sweep <field=v1,v2>",
        "try each value, e.g. evictionHard.memory.available=100Mi,500Mi,1Gi (repeatable: every combination)",
        collect,
        [],
      )
      .option("--set <field=value>", "change one setting of every configuration (repeatable)", collect, [])
      .option(
        "--objective <name>",
        "fewest-evictions | most-allocatable (both with 0 OOM-risk moments)",
        "fewest-evictions",
      )
      .option("--open-loop", "replay the samples as recorded instead of what-if", false);
  variantOptions(
    compare
      .command("run", { isDefault: true })
      .description("compare on this machine's cores")
      .argument("<traces...>", "trace files (any form replay reads), or directories of them"),
  )
    .option("--workers <n>", "worker threads (default: the machine's cores)")
    .option("-o, --output <format>", "table | json | katib (one configuration's name=value metrics)", "table")
    .option("--html <file>", "also write the comparison as an HTML page (per-node reports beside it)")
    .option("--reports <which>", "per-node reports with --html: worst | all | none", "worst")
    .action(async (traces: string[], opts: CompareCliOptions) => {
      const { compareCommand } = await import("./commands/compare.js");
      process.exitCode = await compareCommand(traces, opts);
    });
  variantOptions(
    compare
      .command("plan")
      .description("write plan.json: every trace × configuration as a shard, with content hashes")
      .argument("<traces...>", "trace files, or directories of them"),
  )
    .option("--out <file>", "where the plan goes")
    .option(
      "--group <how>",
      "cell: a shard per trace × configuration; trace: a shard per trace, all configurations (read once)",
      "cell",
    )
    .action(async (traces: string[], opts: CompareCliOptions & { out?: string; group?: string }) => {
      const { comparePlanCommand } = await import("./commands/compare.js");
      process.exitCode = await comparePlanCommand(traces, opts);
    });
  compare
    .command("shard")
    .description("run one shard of a plan (an Indexed Job's worker): exit 2 for invalid input, 3 to retry")
    .argument("<plan>", "plan.json")
    .option("--index <n>", "the shard (default: $JOB_COMPLETION_INDEX)")
    .option("--results <dir>", "where each shard's result file goes")
    .action(async (plan: string, opts: { index?: string; results?: string }) => {
      const { compareShardCommand } = await import("./commands/compare.js");
      process.exitCode = await compareShardCommand(plan, opts);
    });
  compare
    .command("merge")
    .description("merge the shards' results into the comparison the single-machine run prints")
    .argument("<plan>", "plan.json")
    .option("--results <dir>", "the shards' result files")
    .option("-o, --output <format>", "table | json | katib", "table")
    .option("--html <file>", "also write the comparison as an HTML page")
    .action(async (plan: string, opts: { results?: string; output?: string; html?: string }) => {
      const { compareMergeCommand } = await import("./commands/compare.js");
      process.exitCode = await compareMergeCommand(plan, opts);
    });

  cmd
    .command("run")
    .description("Run the node daemon: pods as processes in cgroups, real pressure, real evictions")
    .requiredOption(
      "--node <file>",
      "node file (YAML): capacity, reservations, directories, eviction settings",
    )
    .option("--dry-run", "decide and explain, never kill", false)
    .option("--cleanup-on-exit", "on exit, kill every pod and remove the node's cgroups", false)
    .action(async (opts: { node: string; dryRun: boolean; cleanupOnExit: boolean }) => {
      const { runCommand } = await import("./commands/run.js");
      process.exitCode = await runCommand(opts);
    });

  cmd
    .command("demo")
    .description("A small node with a few pods, live: memory and local-storage evictions, then a summary")
    .option("--seconds <n>", "how long the demo runs (a positive number)", parseSeconds, 45)
    .action(async (opts: { seconds: number }) => {
      const { demoCommand } = await import("./commands/demo.js");
      process.exitCode = await demoCommand(opts);
    });

  cmd
    .command("check-config")
    .description(
      "Validate a KubeletConfiguration and kubelet flags, or an `evictd run` node file (--node); print the thresholds that would be used",
    )
    .argument("[config]", "KubeletConfiguration file (YAML or JSON); omit for kubelet defaults")
    .argument("[flags...]", "kubelet eviction flags, e.g. --eviction-hard=memory.available<1Gi (after --)")
    .option("-o, --output <format>", "text | json", "text")
    .option(
      "--node <file>",
      "check an `evictd run` node file instead: every problem, the thresholds, capacity and allocatable run would use; starts nothing",
    )
    .action(async (config: string | undefined, flags: string[], opts: { output: string; node?: string }) => {
      const { checkConfigCommand, checkNodeFileCommand } = await import("./commands/check-config.js");
      if (opts.node !== undefined) {
        process.exitCode = await checkNodeFileCommand(opts.node, [config, ...flags], opts);
        return;
      }
      // `check-config -- --eviction-hard=...` (no file): the first flag lands in [config].
      const [file, all] =
        config?.startsWith("--") === true ? [undefined, [config, ...flags]] : [config, flags];
      process.exitCode = await checkConfigCommand(file, all, opts);
    });

  withNodeLocalOptions(
    withClusterOptions(
      cmd
        .command("explain")
        .description(
          "A cluster node now: signals against its kubelet's thresholds, conditions, and who would be evicted next and why",
        ),
    ),
  )
    .option("-o, --output <format>", "table | json", "table")
    .action(async (opts: ClusterCliOptions & NodeLocalCliOptions & { output: string }) => {
      const { explainCommand } = await import("./commands/explain.js");
      process.exitCode = await explainCommand(opts);
    });

  cmd
    .command("import")
    .description("Build a replayable trace from data a cluster already holds")
    .command("prometheus")
    .description(
      "Rebuild a node's trace (the one `record` writes) from Prometheus: cAdvisor, node-exporter and kube-state-metrics series",
    )
    .requiredOption("--url <url>", "Prometheus' base URL (http or https; user:password@ for basic auth)")
    .requiredOption("--node <name>", "the node's name, as cAdvisor's node label and kube_pod_info carry it")
    .requiredOption("--from <time>", "first step: RFC 3339, now or now-DURATION (now-24h)")
    .option("--to <time>", "last step (same forms)", "now")
    .option("--step <duration>", "time between steps (the kubelet's housekeeping interval is 10s)", "10s")
    .requiredOption(
      "-o, --output <file>",
      "the trace to write (JSON lines, compressed when named .br or .gz)",
    )
    .option(
      "--config <file>",
      "the node's KubeletConfiguration, for the trace's header (default: the kubelet's defaults)",
    )
    .option(
      "--priority-class <name=value>",
      "a PriorityClass' value (repeatable; the built-in ones are known)",
      collect,
      [],
    )
    .option("--node-label <label>", "the label cAdvisor's series name the node in", "node")
    .option(
      "--node-exporter-label <label>",
      "the label node-exporter's series name the node in (instance: with or without a port)",
      "instance",
    )
    .option("--nodefs-mountpoint <path>", "node-exporter mountpoint of the kubelet's filesystem", "/")
    .option(
      "--imagefs-mountpoint <path>",
      "node-exporter mountpoint of the image store (absent: on nodefs)",
      "/var/lib/containerd",
    )
    .option(
      "--lookback <duration>",
      "how old a sample may be and still stand for a step (default: twice the scrape interval)",
    )
    .option("--chunk <duration>", "time range one round of queries covers", "1h")
    .option("--bearer-token-file <file>", "a bearer token, read again for every request")
    .option("--ca-file <file>", "PEM CA bundle Prometheus' certificate is checked against")
    .option("--request-timeout <duration>", "per request, before it is retried", "2m")
    .action(async (opts: ImportPrometheusCliOptions) => {
      const { importPrometheusCommand } = await import("./commands/import-prometheus.js");
      process.exitCode = await importPrometheusCommand(opts);
    });

  withClusterOptions(
    cmd
      .command("record")
      .description(
        "Record a cluster node's pressure as a replay scenario (JSONL): configz, pods, Summary samples",
      ),
  )
    .requiredOption(
      "-o, --output <file>",
      "the trace to write (JSON lines, compressed when named .br or .gz; valid even if interrupted)",
    )
    .option("--duration <duration>", "how long to record (Go duration)", "1h")
    .option("--interval <duration>", "time between samples (Go duration)", "10s")
    .option(
      "--full-summaries",
      "keep every Summary whole (default: what the engine reads, with pressure and swap figures; name the file .br or .gz to compress)",
      false,
    )
    .action(
      async (
        opts: ClusterCliOptions & {
          duration: string;
          interval: string;
          output: string;
          fullSummaries: boolean;
        },
      ) => {
        const { recordCommand } = await import("./commands/record.js");
        process.exitCode = await recordCommand(opts);
      },
    );

  withNodeLocalOptions(
    withClusterOptions(
      cmd
        .command("watch")
        .description(
          "Run the eviction loop against a cluster node: shadow mode by default, --enforce to evict",
        ),
    ),
  )
    .option(
      "--enforce",
      "evict as the kubelet does: DisruptionTarget condition, Evicted event, then delete with the grace period",
      false,
    )
    .option(
      "--use-eviction-api",
      "with --enforce: evict through the Eviction API (honours PodDisruptionBudgets)",
      false,
    )
    .option(
      "--eviction-preflight",
      "with --enforce: a pod its PodDisruptionBudget protects is skipped for the next one, learnt from the eviction's own refusal with --use-eviction-api (the default there), from a dry run first with deletion",
    )
    .option(
      "--no-eviction-preflight",
      "with --enforce --use-eviction-api: a budget's refusal is retried, then a failed kill (the next pod is not tried)",
    )
    .option(
      "--eviction-dry-run",
      "with --enforce --use-eviction-api and the preflight: a dry run before every pressure eviction, as with deletion (one round trip more before each)",
      false,
    )
    .option(
      "--eviction-request",
      "with --enforce --use-eviction-api: soft-threshold evictions as EvictionRequests (lifecycle.k8s.io/v1alpha1, Kubernetes 1.37 alpha), pods/eviction where not served",
      false,
    )
    .option("--interval <duration>", "loop period (the kubelet's housekeeping interval is 10s)", "10s")
    .option("--listen <host:port>", "HTTP: /healthz /metrics /status /stats/summary", "127.0.0.1:9090")
    .option("--decision-log <file>", "write every decision as JSON lines (the replay step records)")
    .option(
      "--record <file>",
      "write a replayable trace (JSONL; .br or .gz compresses it) of every sample the loop acted on",
    )
    .option(
      "--full-summaries",
      "with --record: keep every Summary whole, not only what the engine reads and pressure and swap figures",
      false,
    )
    .action(async (opts: WatchCliOptions) => {
      const { watchCommand } = await import("./commands/watch.js");
      process.exitCode = await watchCommand(opts);
    });
  return cmd;
}

/** Runs the CLI and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    process.exitCode = 0;
    await program().parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; usage errors (unknown option, missing argument) are input errors.
      return e.exitCode === 0 ? EXIT.ok : EXIT.input;
    }
    if (e instanceof InputError) {
      // One line per problem, whatever the input's text holds (control characters are escaped).
      for (const issue of e.issues) process.stderr.write(terminalSafe(formatIssue(issue)) + "\n");
      return EXIT.input;
    }
    // Library text (a client-node error, a stack) can quote what it read: scrubbed of credentials.
    if (e instanceof AdapterError) {
      // The environment said no (cluster unreachable, credentials refused, a file missing): not a bug.
      // Some messages are several lines (a kubeconfig's problems with their excerpts): the lines stay.
      const hint = e.hint !== undefined ? `  hint: ${terminalSafeLines(e.hint)}\n` : "";
      process.stderr.write(scrubSecrets(`evictd: ${terminalSafeLines(e.message)}\n${hint}`));
      return EXIT.environment;
    }
    process.stderr.write(
      scrubSecrets(
        `evictd: internal error: ${terminalSafeLines(e instanceof Error ? (e.stack ?? e.message) : String(e))}\n`,
      ),
    );
    return EXIT.internal;
  }
}
