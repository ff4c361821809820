/**
 * Kernel OOM kills in the kubelet's pod cgroups, counted per container as they happen: what the
 * kubelet itself never reports (kubernetes#69676) beyond a container's last state. The kernel
 * counts each kill in the victim's cgroup: cgroup v2's `memory.events` `oom_kill` is hierarchical
 * (the container's, its pod's and kubepods' all rise), v1's `memory.oom_control` `oom_kill` is the
 * victim's cgroup's own. A scan compares each container's count with the last one seen; on v2 it
 * first reads kubepods' count alone and reads the containers only when that rose, so a quiet node
 * costs one file read per scan.
 *
 * Which limit was hit: the kernel's OOM killer runs for the cgroup whose limit a charge could not
 * fit under. That cgroup's limit event counter rises with it (v2 `oom` in memory.events.local, v1
 * memory.failcnt, which also counts charges that reclaim then satisfied): the container's own, its
 * pod's (the kubelet sets the pod's limit to the sum of its containers'), or neither, in which case
 * the node (or kubepods, the allocatable cgroup) ran out.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { KubeletCgroupTree } from "./kubelet-cgroup-tree.js";

/** One or more kills of processes in one container since the last scan. */
export interface ContainerOomKill {
  readonly podUid: string;
  /**
   * "" when the kill's container cgroup was gone by the scan (the runtime removes it when the
   * container exits): v2 still counts the kill in the pod's cgroup, and the container is named from
   * the pod's status by its caller.
   */
  readonly containerId: string;
  readonly kills: number;
  /** Whose limit the kills came from; unknown when the container's cgroup was gone. */
  readonly limitHit: "container" | "pod" | "node" | "unknown";
  /** The container's memory limit (undefined: none). */
  readonly limitBytes: bigint | undefined;
  /** The container's peak usage (v2 memory.peak, v1 memory.max_usage_in_bytes), when the kernel keeps one. */
  readonly peakBytes: bigint | undefined;
}

interface Seen {
  oomKills: number;
  /** The container's and its pod's limit events counter at the last look (see the module comment). */
  containerLimitEvents: number;
  podLimitEvents: number;
}

/** A cgroup without a limit: v1's is the largest page-aligned int64. */
const V1_UNLIMITED = 1n << 62n;

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined; // the cgroup went meanwhile (its pod ended), or the kernel lacks the file
  }
}

function keyed(text: string | undefined, key: string): number {
  const m = text === undefined ? null : new RegExp(`^${key} (\\d+)$`, "m").exec(text);
  return m?.[1] === undefined ? 0 : Number(m[1]);
}

function bytes(text: string | undefined, api: "v1" | "v2"): bigint | undefined {
  const t = text?.trim();
  if (t === undefined || t === "" || t === "max" || !/^\d+$/.test(t)) return undefined;
  const v = BigInt(t);
  return api === "v1" && v >= V1_UNLIMITED ? undefined : v;
}

export class KubeletOomKillCounter {
  readonly #tree: KubeletCgroupTree;
  /** Per container directory. */
  readonly #seen = new Map<string, Seen>();
  /** v2: each pod cgroup's own (hierarchical) count, by directory. */
  readonly #podKills = new Map<string, number>();
  #kubepodsKills: number | undefined;
  #baseline = true;

  constructor(tree: KubeletCgroupTree) {
    this.#tree = tree;
  }

  #oomKills(dir: string): number {
    return keyed(
      read(path.join(dir, this.#tree.api === "v2" ? "memory.events" : "memory.oom_control")),
      "oom_kill",
    );
  }

  #limitEvents(dir: string): number {
    if (this.#tree.api === "v1") return Number(read(path.join(dir, "memory.failcnt"))?.trim() ?? 0) || 0;
    return keyed(read(path.join(dir, "memory.events.local")) ?? read(path.join(dir, "memory.events")), "oom");
  }

  /**
   * Kills since the last scan. The first scan only learns the counts: kills from before this
   * process started are not reported as new.
   */
  scan(): ContainerOomKill[] {
    const api = this.#tree.api;
    if (api === "v2") {
      const total = this.#oomKills(this.#tree.kubepodsDir);
      const unchanged = total === this.#kubepodsKills;
      this.#kubepodsKills = total;
      if (unchanged && !this.#baseline) return [];
    }
    // A full listing: a restarted container has a new directory, which a reused listing would miss.
    const pods = this.#tree.scan();
    const out: ContainerOomKill[] = [];
    const present = new Set<string>();
    for (const pod of pods.values()) {
      present.add(pod.dir);
      let counted = 0;
      for (const [containerId, dir] of pod.containers) {
        present.add(dir);
        const kills = this.#oomKills(dir);
        const seen = this.#seen.get(dir);
        if (seen === undefined) {
          // A container first seen after the baseline started during this process's watch: every
          // kill it has counted is new.
          this.#seen.set(dir, {
            oomKills: this.#baseline ? kills : 0,
            containerLimitEvents: this.#baseline ? this.#limitEvents(dir) : 0,
            podLimitEvents: this.#baseline ? this.#limitEvents(pod.dir) : 0,
          });
          if (this.#baseline || kills === 0) continue;
        }
        const last = this.#seen.get(dir) as Seen;
        if (kills <= last.oomKills) continue;
        counted += kills - last.oomKills;
        const containerEvents = this.#limitEvents(dir);
        const podEvents = this.#limitEvents(pod.dir);
        const limitBytes = bytes(
          read(path.join(dir, api === "v2" ? "memory.max" : "memory.limit_in_bytes")),
          api,
        );
        const podLimit = bytes(
          read(path.join(pod.dir, api === "v2" ? "memory.max" : "memory.limit_in_bytes")),
          api,
        );
        const limitHit =
          limitBytes !== undefined && containerEvents > last.containerLimitEvents
            ? "container"
            : podLimit !== undefined && podEvents > last.podLimitEvents
              ? "pod"
              : "node";
        out.push({
          podUid: pod.uid,
          containerId,
          kills: kills - last.oomKills,
          limitHit,
          limitBytes,
          peakBytes: bytes(
            read(path.join(dir, api === "v2" ? "memory.peak" : "memory.max_usage_in_bytes")),
            api,
          ),
        });
        this.#seen.set(dir, {
          oomKills: kills,
          containerLimitEvents: containerEvents,
          podLimitEvents: podEvents,
        });
      }
      if (api === "v2") {
        // v2 counts a kill in the pod's cgroup too: one its containers do not account for was in a
        // container whose cgroup the runtime removed before this scan.
        const podKills = this.#oomKills(pod.dir);
        const last = this.#podKills.get(pod.dir) ?? (this.#baseline ? podKills : 0);
        this.#podKills.set(pod.dir, podKills);
        const uncounted = podKills - last - counted;
        if (uncounted > 0)
          out.push({
            podUid: pod.uid,
            containerId: "",
            kills: uncounted,
            limitHit: "unknown",
            limitBytes: undefined,
            peakBytes: undefined,
          });
      }
    }
    for (const dir of [...this.#seen.keys()]) if (!present.has(dir)) this.#seen.delete(dir);
    for (const dir of [...this.#podKills.keys()]) if (!present.has(dir)) this.#podKills.delete(dir);
    this.#baseline = false;
    return out;
  }
}
