/**
 * What `evictd run`'s HTTP surface shows (/status, /stats/summary, the page at /): the loop
 * thread's last step, the Summary it decided from, the manifest files with problems, and the pods
 * as the runtime has them now. The Summary stays on the loop thread until a request wants it
 * (architecture.md, "The Summary stays on the loop thread"): it is fetched at most once per step
 * and decoded, for /status's ranking, at most once per fetch.
 */
import type { LoopStepData } from "../app/loop/loop-step-data.js";
import { buildDaemonSnapshot, type SnapshotJournal } from "../app/node-view/build-daemon-snapshot.js";
import type {
  DaemonSnapshot,
  ManifestProblem,
  PodStatusView,
  SnapshotNode,
} from "../app/node-view/snapshot.js";
import type { ClockPort } from "../app/ports.js";
import { IssueList } from "../core/issues.js";
import type { FilesystemLayout, NodeCondition, NodeSummary, Pod } from "../core/model.js";
import { decodeSummary } from "../core/summary/decode-summary.js";
import type { LoopThread } from "./loop-thread/loop-thread.js";
import type { LastSummary } from "./loop-thread/protocol.js";

/** How long an HTTP request waits for the loop thread's last Summary before answering with the one before. */
export const SUMMARY_WAIT_MS = 2000;

/** What a snapshot shows of the pods (the process runtime). */
export interface StatusViewPods {
  statusViews(): readonly PodStatusView[];
  activePods(): readonly Pod[];
}

export interface DaemonStatusViewOptions {
  readonly node: SnapshotNode;
  readonly startedAt: number;
  /** What the daemon can and cannot do here; the start may still add to it. */
  readonly capabilities: readonly string[];
  readonly layout: FilesystemLayout;
  readonly pods: StatusViewPods;
  readonly journal: SnapshotJournal;
  readonly clock: Pick<ClockPort, "now">;
  /** The loop thread once it is up, which keeps the last step's Summary. */
  readonly loopThread: () => Pick<LoopThread, "summary"> | undefined;
}

/** The last Summary fetched, with its decoding once one was asked for. */
interface FetchedSummary {
  readonly answer: LastSummary;
  decoded?: NodeSummary | undefined;
}

export class DaemonStatusView {
  readonly #options: DaemonStatusViewOptions;
  #lastStep: { readonly seq: number; readonly step: LoopStepData } | undefined;
  #summary: FetchedSummary | undefined;
  #fetching: Promise<void> | undefined;
  #manifestErrors: readonly ManifestProblem[] = [];

  constructor(options: DaemonStatusViewOptions) {
    this.#options = options;
  }

  /** The loop thread's step number `seq`: what the next snapshot reports, and its Summary is fetched for. */
  stepTaken(step: LoopStepData, seq: number): void {
    this.#lastStep = { seq, step };
  }

  /** The node's conditions as the last step left them (none before the first). */
  conditions(): readonly NodeCondition[] {
    return this.#lastStep?.step.state.nodeConditions ?? [];
  }

  /** The manifest files with problems, as the last scan found them. */
  manifestProblems(problems: readonly ManifestProblem[]): void {
    this.#manifestErrors = problems;
  }

  /**
   * The Summary the last step decided from, asked of the loop thread once per step (requests that
   * come while it answers wait for the same answer); the one before when it does not answer in
   * {@link SUMMARY_WAIT_MS}, or none.
   */
  async lastSummary(): Promise<LastSummary | undefined> {
    return (await this.#fetched())?.answer;
  }

  async snapshot(): Promise<DaemonSnapshot> {
    const { node, startedAt, capabilities, layout, pods, journal, clock } = this.#options;
    const report = this.#lastStep?.step.report;
    const fetched = await this.#fetched();
    if (fetched !== undefined && !("decoded" in fetched))
      fetched.decoded = decodeSummary(fetched.answer.raw, "summary", clock.now(), new IssueList());
    const latest = fetched?.answer;
    return buildDaemonSnapshot({
      node,
      startedAt,
      now: clock.now(),
      capabilities,
      conditions: this.conditions(),
      layout,
      ...(report !== undefined ? { lastReport: report } : {}),
      ...(latest !== undefined ? { rawSummary: latest.raw } : {}),
      ...(fetched?.decoded !== undefined ? { summary: fetched.decoded } : {}),
      pods: pods.statusViews(),
      activePods: pods.activePods(),
      ...(latest?.podMemory !== undefined ? { podMemory: latest.podMemory } : {}),
      ...(latest?.nodeMemoryViews !== undefined ? { nodeMemoryViews: latest.nodeMemoryViews } : {}),
      journal,
      manifestErrors: this.#manifestErrors,
    });
  }

  async #fetched(): Promise<FetchedSummary | undefined> {
    const thread = this.#options.loopThread();
    const lastStep = this.#lastStep;
    if (lastStep !== undefined && this.#summary?.answer.seq !== lastStep.seq && thread !== undefined) {
      this.#fetching ??= thread.summary(SUMMARY_WAIT_MS).then((answer) => {
        this.#fetching = undefined;
        if (answer !== undefined && answer.raw !== undefined) this.#summary = { answer };
      });
      await this.#fetching;
    }
    return this.#summary;
  }
}
