/**
 * The options every cluster command shares (how to reach the node, which thresholds to use) and the
 * checks of the values given on the command line: each bad value is collected with the option's
 * name, then all are reported at once.
 */
import type { Command } from "commander";
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import {
  evictionSettingsFromConfigz,
  type ClusterEvictionSettings,
} from "../../app/cluster/eviction-settings.js";
import { loadEvictionConfig } from "../../formats/load-eviction-config.js";
import { unwritableReason } from "../../formats/output-path.js";
import type { ConnectClusterNodeOptions } from "../../kubernetes/index.js";
import { durationToMs, formatDurationMs, parseGoDuration } from "../../core/time/duration.js";
import type { Issue } from "../../core/issues.js";
import { parseListenAddress } from "../../core/node/listen-address.js";

export interface ClusterCliOptions {
  readonly node: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly inCluster?: boolean;
  readonly source?: string;
  readonly kubeletPort?: string;
  readonly kubeletInsecureTls?: boolean;
  readonly kubeletCa?: string;
  readonly config?: string;
  readonly requestTimeout?: string;
}

/** Adds the connection options to a cluster command. */
export function withClusterOptions(cmd: Command): Command {
  return cmd
    .requiredOption("--node <name>", "the Kubernetes node")
    .option(
      "--kubeconfig <file>",
      "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then the in-cluster service account)",
    )
    .option("--context <name>", "kubeconfig context (default: its current-context)")
    .option("--in-cluster", "use the pod's service account only")
    .option(
      "--source <source>",
      "where Summary and configz come from: proxy (the API server's node proxy) | kubelet (https://NODE:10250)",
      "proxy",
    )
    .option(
      "--kubelet-port <port>",
      "the kubelet's port for --source kubelet (default: the port the Node reports, else 10250)",
    )
    .option("--kubelet-insecure-tls", "do not verify the kubelet's serving certificate (--source kubelet)")
    .option(
      "--kubelet-ca <file>",
      "CA bundle for the kubelet's serving certificate (default: the cluster CA)",
    )
    .option("--config <file>", "use this KubeletConfiguration instead of the node's configz (what if?)")
    .option(
      "--request-timeout <duration>",
      "how long one attempt of a request may take (Go duration, or seconds; 0: no limit); retries stop within 30s",
      // The adapter's DEFAULT_REQUEST_TIMEOUT_MS, written out: this file must not load the adapter.
      "10s",
    );
}

/** Node's timers overflow past 2^31−1 ms (about 24.8 days); a day is the most asked of one request. */
const MAX_REQUEST_TIMEOUT_MS = 24 * 3600_000;

/**
 * `--request-timeout` as kubectl reads it: a Go duration (`30s`, `1m`) or a whole number of
 * seconds; 0 means no limit.
 */
export function requestTimeoutOption(value: string, issues: Issue[]): number {
  const text = value.trim();
  let ms: number | undefined;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    try {
      ms = durationToMs(parseGoDuration(text));
    } catch {
      ms = undefined;
    }
  }
  if (ms === undefined || ms < 0 || ms > MAX_REQUEST_TIMEOUT_MS) {
    issues.push(
      issue(
        "--request-timeout",
        `expected a duration from 0 (no limit) to 24h such as 10s or 1m, or whole seconds, got ${JSON.stringify(value)}`,
      ),
    );
    return 0;
  }
  return ms;
}

function issue(path: string, message: string): Issue {
  return { severity: "error", path, code: "invalid", message };
}

/** Connection settings from the options; problems are pushed to `issues`. */
export function connectOptions(o: ClusterCliOptions, issues: Issue[]): ConnectClusterNodeOptions {
  if (o.node.trim() === "")
    issues.push(issue("--node", `expected a node name, got ${JSON.stringify(o.node)}`));
  const source = o.source ?? "proxy";
  if (source !== "proxy" && source !== "kubelet")
    issues.push(issue("--source", `expected proxy or kubelet, got ${JSON.stringify(source)}`));
  let kubeletPort: number | undefined;
  if (o.kubeletPort !== undefined) {
    kubeletPort = Number(o.kubeletPort);
    if (!/^\d+$/.test(o.kubeletPort) || kubeletPort < 1 || kubeletPort > 65535)
      issues.push(
        issue("--kubelet-port", `expected a port from 1 to 65535, got ${JSON.stringify(o.kubeletPort)}`),
      );
  }
  const requestTimeoutMs =
    o.requestTimeout === undefined ? undefined : requestTimeoutOption(o.requestTimeout, issues);
  return {
    nodeName: o.node,
    source: source === "kubelet" ? "kubelet" : "proxy",
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    ...(o.kubeconfig !== undefined ? { kubeconfig: o.kubeconfig } : {}),
    ...(o.context !== undefined ? { context: o.context } : {}),
    ...(o.inCluster === true ? { inCluster: true } : {}),
    ...(kubeletPort !== undefined ? { kubeletPort } : {}),
    ...(o.kubeletInsecureTls === true ? { kubeletInsecureTls: true } : {}),
    ...(o.kubeletCa !== undefined ? { kubeletCa: o.kubeletCa } : {}),
  };
}

/**
 * An output file option (`--output`, `--decision-log`, `--record`) checked before the command
 * contacts anything: a path that cannot be written is an input problem naming the path and why.
 */
export function outputPathIssue(option: string, file: string, issues: Issue[]): void {
  const reason = unwritableReason(file);
  if (reason !== undefined)
    issues.push({
      severity: "error",
      path: option,
      code: "unwritable",
      message: `cannot write ${JSON.stringify(file)}: ${reason}`,
    });
}

/**
 * A positive Go duration option (`10s`, `1h30m`) in ms. `maximumMs` bounds a period that feeds a
 * timer (TIMER_MAX_MS: a longer one would fire at once).
 */
export function durationOption(
  name: string,
  value: string,
  issues: Issue[],
  minimumMs = 1,
  maximumMs = Infinity,
): number {
  try {
    const ms = durationToMs(parseGoDuration(value));
    if (ms < minimumMs) {
      issues.push(
        issue(name, `expected a duration of at least ${minimumMs} ms, got ${JSON.stringify(value)}`),
      );
      return minimumMs;
    }
    if (ms > maximumMs) {
      issues.push(
        issue(
          name,
          `expected a duration of at most ${formatDurationMs(maximumMs)} (the longest a timer holds), got ${JSON.stringify(value)}`,
        ),
      );
      return maximumMs;
    }
    return ms;
  } catch {
    issues.push(issue(name, `expected a Go duration such as 10s or 1h30m, got ${JSON.stringify(value)}`));
    return minimumMs;
  }
}

/** `host:port` (IPv6 in brackets); port 0 picks a free one. */
export function listenOption(value: string, issues: Issue[]): { host: string; port: number } {
  const parsed = parseListenAddress(value);
  if (!("error" in parsed)) return parsed;
  issues.push(issue("--listen", parsed.error));
  return { host: "127.0.0.1", port: 0 };
}

/**
 * The eviction settings `--config` selects: that KubeletConfiguration file ("what if?"), or else the
 * node's own configz.
 */
export async function clusterEvictionSettings(
  api: ClusterNodePort,
  configFile: string | undefined,
  signal?: AbortSignal,
): Promise<ClusterEvictionSettings> {
  if (configFile === undefined)
    return evictionSettingsFromConfigz(await api.kubeletConfig(signal), api.nodeName);
  return clusterEvictionSettingsOf(configFile, undefined, api.nodeName);
}

/**
 * The same settings from what the command already read: `configFile`, or else `configz` (the node's,
 * read once at start by a command that also needs it for the kubelet's cgroups).
 */
export async function clusterEvictionSettingsOf(
  configFile: string | undefined,
  configz: unknown,
  nodeName: string,
): Promise<ClusterEvictionSettings> {
  if (configFile === undefined) return evictionSettingsFromConfigz(configz, nodeName);
  const loaded = await loadEvictionConfig(configFile, []);
  return { ...loaded, flags: [], origin: configFile };
}
