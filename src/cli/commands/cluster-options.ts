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
    .option("--config <file>", "use this KubeletConfiguration instead of the node's configz (what if?)");
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
  return {
    nodeName: o.node,
    source: source === "kubelet" ? "kubelet" : "proxy",
    ...(o.kubeconfig !== undefined ? { kubeconfig: o.kubeconfig } : {}),
    ...(o.context !== undefined ? { context: o.context } : {}),
    ...(o.inCluster === true ? { inCluster: true } : {}),
    ...(kubeletPort !== undefined ? { kubeletPort } : {}),
    ...(o.kubeletInsecureTls === true ? { kubeletInsecureTls: true } : {}),
    ...(o.kubeletCa !== undefined ? { kubeletCa: o.kubeletCa } : {}),
  };
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
): Promise<ClusterEvictionSettings> {
  if (configFile === undefined) return evictionSettingsFromConfigz(await api.kubeletConfig(), api.nodeName);
  const loaded = await loadEvictionConfig(configFile, []);
  return { ...loaded, flags: [], origin: configFile };
}
