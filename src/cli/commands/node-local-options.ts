/**
 * `--stats cgroups` and its options, shared by `watch` and `explain`: where the kubelet's cgroups
 * are (`--cgroupfs`, `--node-cgroup`), how it names them (`--cgroup-driver`, `--cgroup-root`, by
 * default from its configz), checked up front with the other options. Opening them is
 * open-kubelet-cgroups.ts (loaded only by the commands that run with them).
 */
import type { Command } from "commander";
import type { Issue } from "../../core/issues.js";

export interface NodeLocalCliOptions {
  readonly stats: string;
  readonly cgroupfs: string;
  readonly cgroupDriver?: string;
  readonly cgroupRoot?: string;
  readonly nodeCgroup: string;
}

/** Adds `--stats` and the cgroup options to a cluster command. */
export function withNodeLocalOptions(cmd: Command): Command {
  return cmd
    .option(
      "--stats <source>",
      "summary: the kubelet's Summary API; cgroups: memory read from the kubelet's own cgroups on this node (run on the node), the rest from the Summary API",
      "summary",
    )
    .option(
      "--cgroupfs <dir>",
      "with --stats cgroups: where the host's cgroup filesystem is mounted",
      "/sys/fs/cgroup",
    )
    .option(
      "--cgroup-driver <driver>",
      "with --stats cgroups: cgroupfs | systemd (default: the kubelet's configz)",
    )
    .option("--cgroup-root <path>", "with --stats cgroups: the kubelet's cgroupRoot (default: its configz)")
    .option(
      "--node-cgroup <path>",
      "with --stats cgroups: the node's cgroup in that filesystem (a node nested in a container or a test)",
      "/",
    );
}

/** Collects the problems of these options into `issues`. */
export function checkNodeLocalOptions(opts: NodeLocalCliOptions, issues: Issue[]): void {
  if (opts.stats !== "summary" && opts.stats !== "cgroups")
    issues.push({
      severity: "error",
      path: "--stats",
      code: "invalid",
      message: `${JSON.stringify(opts.stats)} is not a stats source: summary or cgroups`,
    });
  if (opts.cgroupDriver !== undefined && opts.cgroupDriver !== "cgroupfs" && opts.cgroupDriver !== "systemd")
    issues.push({
      severity: "error",
      path: "--cgroup-driver",
      code: "invalid",
      message: `${JSON.stringify(opts.cgroupDriver)} is not a kubelet cgroup driver: cgroupfs or systemd`,
    });
  if (opts.stats !== "cgroups") {
    const given = [
      ["--cgroup-driver", opts.cgroupDriver],
      ["--cgroup-root", opts.cgroupRoot],
    ].filter(([, v]) => v !== undefined);
    for (const [flag] of given)
      issues.push({
        severity: "error",
        path: flag ?? "",
        code: "invalid",
        message: "only means something with --stats cgroups",
      });
  }
}
