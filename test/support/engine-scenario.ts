/**
 * A time-stepped scenario DSL over the engine:
 * `scenario({config, pods}).at("0s", node({...})).at("10s", node({...})).run()` runs one
 * synchronize per step (kubelet config through buildEvictionConfig, manifests through
 * decodePodList), answers the engine's node-level-reclaim continuation from the step's options, and
 * returns every step's report and state.
 */
import { buildEvictionConfig } from "../../src/core/config/build-eviction-config.js";
import { formatIssue, IssueList } from "../../src/core/issues.js";
import { decodePodList } from "../../src/core/pod/decode-pod.js";
import { INITIAL_STATE, synchronize } from "../../src/core/engine/index.js";
import type { EngineState, ReclaimFunction, SyncReport, SyncResult } from "../../src/core/engine/index.js";
import type { EpochMs, EvictionConfig, FilesystemLayout, NodeSummary, Pod } from "../../src/core/model.js";
import type { PodManifest } from "./pod-manifests.js";
import { offsetTime, type SummarySpec } from "./summary-builders.js";

export interface ScenarioSpec {
  /** KubeletConfiguration fields; apiVersion and kind are added. Absent = every default. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Kubelet command-line words, e.g. `--eviction-pressure-transition-period=0s`. */
  readonly flags?: readonly string[];
  readonly pods?: readonly PodManifest[];
  /** The node's filesystem layout (default `single`). */
  readonly layout?: FilesystemLayout;
  /**
   * `keep` (default) leaves evicted pods active, as the kubelet's active-pod list still holds pods
   * whose termination is in progress; `remove` drops them after the step that evicted them.
   */
  readonly evictedPods?: "keep" | "remove";
}

export interface StepOptions {
  /**
   * The summary read after node-level reclaim: default the step's summary unchanged; `null` makes
   * reading it fail (the reclaim then counts as insufficient).
   */
  readonly afterReclaim?: SummarySpec | NodeSummary | null;
  /** Reclaim functions that fail at this step, with their error text. */
  readonly reclaimErrors?: Partial<Record<ReclaimFunction, string>>;
  /** The active pods at this step, by `namespace/name`; default every pod not yet removed. */
  readonly activePods?: readonly string[];
}

export interface StepResult {
  /** The step's offset as written (`"1m30s"`). */
  readonly at: string;
  readonly now: EpochMs;
  readonly report: SyncReport;
  readonly state: EngineState;
  /** The reclaim functions the engine stopped for; absent when it did not ask for reclaim. */
  readonly reclaimRequested?: readonly ReclaimFunction[];
  readonly activePods: readonly Pod[];
}

export interface ScenarioRun {
  readonly config: EvictionConfig;
  readonly pods: readonly Pod[];
  readonly steps: readonly StepResult[];
  /** The step at an offset (throws when there is none). */
  step(at: string): StepResult;
}

interface Step {
  readonly at: string;
  /** `null`: the summary could not be read (stats error). */
  readonly summary: SummarySpec | NodeSummary | null;
  readonly options: StepOptions;
}

/** Config through the real parser; a config the kubelet would refuse fails the test loudly. */
export function evictionConfig(
  config?: Readonly<Record<string, unknown>>,
  flags: readonly string[] = [],
): EvictionConfig {
  const result = buildEvictionConfig({
    ...(config !== undefined
      ? { config: { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration", ...config } }
      : {}),
    flags,
  });
  if (!result.ok) throw new Error(`invalid test config:\n${result.issues.map(formatIssue).join("\n")}`);
  return result.config;
}

/** Manifests through the real decoder (API server defaults applied). */
export function decodePods(manifests: readonly PodManifest[]): Pod[] {
  const issues = new IssueList();
  const pods = decodePodList([...manifests], "pods", issues);
  if (issues.hasErrors) throw new Error(`invalid test pods:\n${issues.errors.map(formatIssue).join("\n")}`);
  return pods;
}

function isSpec(s: SummarySpec | NodeSummary): s is SummarySpec {
  return "kind" in s && s.kind === "summary-spec";
}

function resolve(s: SummarySpec | NodeSummary, time: EpochMs): NodeSummary {
  return isSpec(s) ? s.build(time) : s;
}

export class Scenario {
  private readonly spec: ScenarioSpec;
  private readonly steps: readonly Step[];

  constructor(spec: ScenarioSpec, steps: readonly Step[] = []) {
    this.spec = spec;
    this.steps = steps;
  }

  /** Adds one synchronize at `offset` after the scenario start, reading `summary` (`null`: stats error). */
  at(offset: string, summary: SummarySpec | NodeSummary | null, options: StepOptions = {}): Scenario {
    return new Scenario(this.spec, [...this.steps, { at: offset, summary, options }]);
  }

  run(): ScenarioRun {
    const config = evictionConfig(this.spec.config, this.spec.flags);
    const pods = decodePods(this.spec.pods ?? []);
    const layout = this.spec.layout ?? "single";
    let state: EngineState = INITIAL_STATE;
    let active: Pod[] = [...pods];
    const results: StepResult[] = [];

    for (const step of this.steps) {
      const now = offsetTime(step.at);
      const stepPods =
        step.options.activePods === undefined
          ? active
          : step.options.activePods.map((key) => {
              const p = pods.find((x) => x.key === key);
              if (p === undefined) throw new Error(`unknown pod ${key}`);
              return p;
            });
      const summary = step.summary === null ? undefined : resolve(step.summary, now);
      const result: SyncResult = synchronize(config, state, { now, summary, activePods: stepPods, layout });
      let report: SyncReport;
      let reclaimRequested: readonly ReclaimFunction[] | undefined;
      if (result.kind === "reclaim") {
        reclaimRequested = result.functions;
        const after = step.options.afterReclaim;
        const afterSummary = after === null ? undefined : after === undefined ? summary : resolve(after, now);
        const resumed = result.resume({
          summary: afterSummary,
          ...(step.options.reclaimErrors !== undefined ? { errors: step.options.reclaimErrors } : {}),
        });
        state = resumed.state;
        report = resumed.report;
      } else {
        state = result.state;
        report = result.report;
      }
      results.push({
        at: step.at,
        now,
        report,
        state,
        ...(reclaimRequested !== undefined ? { reclaimRequested } : {}),
        activePods: stepPods,
      });
      if (this.spec.evictedPods === "remove") {
        const gone = new Set(report.evictions.map((e) => e.pod.uid));
        active = active.filter((p) => !gone.has(p.uid));
      }
    }

    return {
      config,
      pods,
      steps: results,
      step(at: string): StepResult {
        const found = results.find((r) => r.at === at);
        if (found === undefined) throw new Error(`no step at ${at}`);
        return found;
      },
    };
  }
}

/** Starts a scenario. */
export function scenario(spec: ScenarioSpec = {}): Scenario {
  return new Scenario(spec);
}

/** One synchronize at `0s`: the common case for single-run rules. */
export function runOnce(
  spec: ScenarioSpec,
  summary: SummarySpec | NodeSummary | null,
  options: StepOptions = {},
): StepResult {
  const run = scenario(spec).at("0s", summary, options).run();
  const first = run.steps[0];
  if (first === undefined) throw new Error("no step ran");
  return first;
}

/** Keys (`namespace/name`) of the pods evicted in a report, in order. */
export function evictedKeys(report: SyncReport): string[] {
  return report.evictions.map((e) => e.pod.key);
}

/** Keys of the ranked pods (undefined when no ranking happened). */
export function rankingKeys(report: SyncReport): string[] | undefined {
  return report.ranking?.map((p) => p.key);
}

/** Keys of the pods refused eviction. */
export function refusedKeys(report: SyncReport): string[] {
  return report.refused.map((r) => r.pod.key);
}

/** Signals of the thresholds met in a report (ignoring grace periods), in report order. */
export function metSignals(report: SyncReport): string[] {
  return report.thresholdsMet.map((t) => t.signal);
}
