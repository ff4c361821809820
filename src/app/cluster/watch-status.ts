/**
 * What `evictd watch` shows at /status and on the live page, and hands /metrics as its pods: the
 * pods as the API lists them (decoded through the pods port's cache: each pod object once, not once
 * per look), the last step's report and sample, each pod's last working set read, and with
 * `--stats cgroups` the node's memory three ways, read when a page asks. The snapshot itself is
 * node-view's one builder, which `run` and `explain` use too.
 */
import type { FilesystemLayout, NodeCondition, Pod } from "../../core/model.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { isTerminalPhase } from "../../core/pod/terminal-phase.js";
import type { LoopStep } from "../loop/eviction-loop.js";
import { buildDaemonSnapshot, type SnapshotJournal } from "../node-view/build-daemon-snapshot.js";
import { LastPodMemory } from "../node-view/last-pod-memory.js";
import { podStatusView } from "../node-view/pod-status-view.js";
import type { DaemonSnapshot, PodStatusView, SnapshotNode } from "../node-view/snapshot.js";
import type { ClockPort } from "../ports.js";

export interface WatchStatusOptions {
  readonly node: SnapshotNode;
  readonly startedAt: number;
  readonly clock: ClockPort;
  readonly capabilities: readonly string[];
  readonly layout: FilesystemLayout;
  readonly journal: SnapshotJournal;
  /** Every pod the API lists on the node, finished ones too. */
  readonly pods: () => readonly unknown[];
  /** A pod object decoded (the pods port's cache); undefined when it cannot be. */
  readonly podOf: (raw: unknown) => Pod | undefined;
  /** The node's conditions as the engine holds them now. */
  readonly conditions: () => readonly NodeCondition[];
  /** The node's memory three ways (`--stats cgroups`). */
  readonly readNodeMemoryViews?: () => NodeMemoryViewsReading | undefined;
}

export class WatchStatus {
  /** Each pod's last working set read, kept across steps: a memory wake reads most pods' usage alone. */
  readonly podMemory = new LastPodMemory();
  readonly #o: WatchStatusOptions;
  #lastStep: LoopStep | undefined;

  constructor(options: WatchStatusOptions) {
    this.#o = options;
  }

  /** The loop's latest step, whose report and sample the snapshot shows. */
  stepped(step: LoopStep): void {
    this.#lastStep = step;
  }

  /** Every pod the API lists that decodes, with its status. */
  podViews(): PodStatusView[] {
    const out: PodStatusView[] = [];
    for (const raw of this.#o.pods()) {
      const pod = this.#o.podOf(raw);
      if (pod !== undefined) out.push(podStatusView(raw, pod));
    }
    return out;
  }

  snapshot(): DaemonSnapshot {
    const o = this.#o;
    const report = this.#lastStep?.report;
    const sample = this.#lastStep?.sample;
    const views = this.podViews();
    const nodeMemoryViews = o.readNodeMemoryViews?.();
    return buildDaemonSnapshot({
      node: o.node,
      startedAt: o.startedAt,
      now: o.clock.now(),
      capabilities: o.capabilities,
      conditions: o.conditions(),
      layout: o.layout,
      ...(report !== undefined ? { lastReport: report } : {}),
      ...(sample !== undefined
        ? { rawSummary: sample.raw, summary: sample.summary, podMemory: this.podMemory.figures() }
        : {}),
      pods: views,
      activePods: views.filter((v) => !isTerminalPhase(v.phase)).map((v) => v.pod),
      ...(nodeMemoryViews !== undefined ? { nodeMemoryViews } : {}),
      journal: o.journal,
    });
  }
}
