/**
 * PodDisruptionBudgets as the fake API server keeps them, and the two upstream pieces of code that
 * give them meaning, rewritten for the fake:
 *
 * - the disruption controller's status (pkg/controller/disruption/disruption.go:
 *   `getExpectedPodCount`, `countHealthyPods`, `updatePdbStatus`), computed from the pods whenever
 *   it is asked for, as a controller that is never behind would keep it. An integer minAvailable
 *   expects as many pods as the selector matches and desires that many healthy; maxUnavailable or
 *   a percentage scales against the pods' controllers (`getExpectedScale`): the fake has no
 *   controllers, so it takes the pods the selector matches, or `expectedPods` when a test gives it.
 *   Healthy is Ready, not being deleted, and not recorded as disrupted by an eviction.
 * - the eviction subresource's budget check (pkg/registry/core/pod/storage/eviction.go:
 *   `getPodDisruptionBudgets` matching by selector in the pod's namespace, more than one budget
 *   refused, an unready pod let go while the budget is whole, `checkAndDecrement` refusing with
 *   429 when no disruption is allowed and, unless it is a dry run, recording the pod in
 *   `disruptedPods`).
 */
import type { FakePod } from "./fake-cluster-state.js";

/** A PodDisruptionBudget a test declares: a label selector and one of minAvailable / maxUnavailable. */
export interface FakeBudgetSpec {
  readonly name: string;
  readonly namespace: string;
  /** `spec.selector.matchLabels`; an empty selector matches no pod (upstream: "should match nothing"). */
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly minAvailable?: number | string;
  readonly maxUnavailable?: number | string;
  readonly unhealthyPodEvictionPolicy?: "IfHealthyBudget" | "AlwaysAllow";
  /** The scale of the pods' controllers (`getExpectedScale`); default: the pods the selector matches. */
  readonly expectedPods?: number;
}

/** `status` as the disruption controller writes it. */
export interface FakeBudgetStatus {
  readonly expectedPods: number;
  readonly desiredHealthy: number;
  readonly currentHealthy: number;
  readonly disruptionsAllowed: number;
  /** Pods (by name) an eviction was approved for and that are not deleted yet, with when. */
  readonly disruptedPods: Readonly<Record<string, string>>;
}

/** What the eviction subresource makes of a pod's budgets. */
export type BudgetCheck =
  | { readonly kind: "allowed"; readonly budget?: string }
  | { readonly kind: "too-many-budgets" }
  | { readonly kind: "refused"; readonly budget: string; readonly status: FakeBudgetStatus };

/** The budgets of the fake cluster. */
export class FakeDisruptionBudgets {
  readonly #specs = new Map<string, FakeBudgetSpec>();
  /** Per budget, the pods an eviction was approved for (name → time). */
  readonly #disrupted = new Map<string, Map<string, string>>();

  add(spec: FakeBudgetSpec): void {
    this.#specs.set(key(spec.namespace, spec.name), spec);
    this.#disrupted.set(key(spec.namespace, spec.name), new Map());
  }

  remove(namespace: string, name: string): void {
    this.#specs.delete(key(namespace, name));
    this.#disrupted.delete(key(namespace, name));
  }

  get size(): number {
    return this.#specs.size;
  }

  /** The budget's status now, computed from `pods` (all pods of the cluster). */
  status(namespace: string, name: string, pods: readonly FakePod[]): FakeBudgetStatus | undefined {
    const spec = this.#specs.get(key(namespace, name));
    return spec === undefined ? undefined : this.#status(spec, pods);
  }

  /**
   * The eviction subresource's verdict on evicting `pod`, and, when it is allowed and not a dry
   * run, the disruption recorded in the budget as `checkAndDecrement` records it.
   */
  check(pod: FakePod, pods: readonly FakePod[], dryRun: boolean, now: Date): BudgetCheck {
    const budgets = [...this.#specs.values()].filter(
      (s) => s.namespace === pod.metadata.namespace && selects(s, pod),
    );
    if (budgets.length > 1) return { kind: "too-many-budgets" };
    const spec = budgets[0];
    if (spec === undefined) return { kind: "allowed" };
    const status = this.#status(spec, pods);
    if (!isReady(pod)) {
      // An unready pod does not count as healthy: evicting it disrupts nobody while the budget holds.
      if (spec.unhealthyPodEvictionPolicy === "AlwaysAllow") return { kind: "allowed", budget: spec.name };
      if (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0)
        return { kind: "allowed", budget: spec.name };
    }
    if (status.disruptionsAllowed === 0) return { kind: "refused", budget: spec.name, status };
    if (!dryRun)
      this.#disrupted
        .get(key(spec.namespace, spec.name))
        ?.set(pod.metadata.name, now.toISOString().replace(/\.\d{3}Z$/, "Z"));
    return { kind: "allowed", budget: spec.name };
  }

  #status(spec: FakeBudgetSpec, pods: readonly FakePod[]): FakeBudgetStatus {
    const selected = pods.filter((p) => p.metadata.namespace === spec.namespace && selects(spec, p));
    const disrupted = this.#disrupted.get(key(spec.namespace, spec.name)) ?? new Map<string, string>();
    // Entries for pods now being deleted or gone are dropped (`buildDisruptedPodMap`).
    for (const name of [...disrupted.keys()]) {
      const pod = selected.find((p) => p.metadata.name === name);
      if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) disrupted.delete(name);
    }
    let expectedPods: number;
    let desiredHealthy: number;
    if (spec.maxUnavailable !== undefined) {
      expectedPods = spec.expectedPods ?? selected.length;
      desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
    } else if (typeof spec.minAvailable === "number") {
      expectedPods = selected.length;
      desiredHealthy = spec.minAvailable;
    } else {
      expectedPods = spec.expectedPods ?? selected.length;
      desiredHealthy = scaled(spec.minAvailable ?? 0, expectedPods);
    }
    const currentHealthy = selected.filter(
      (p) => p.metadata.deletionTimestamp === undefined && !disrupted.has(p.metadata.name) && isReady(p),
    ).length;
    const allowed = currentHealthy - desiredHealthy;
    return {
      expectedPods,
      desiredHealthy,
      currentHealthy,
      disruptionsAllowed: expectedPods <= 0 || allowed <= 0 ? 0 : allowed,
      disruptedPods: Object.fromEntries(disrupted),
    };
  }
}

/** `intstr.GetScaledValueFromIntOrPercent` with roundUp, as the controller calls it. */
function scaled(value: number | string, total: number): number {
  if (typeof value === "number") return value;
  const m = /^(\d+)%$/.exec(value);
  if (m === null) throw new Error(`fake: invalid budget value ${JSON.stringify(value)}`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

function selects(spec: FakeBudgetSpec, pod: FakePod): boolean {
  const wanted = Object.entries(spec.matchLabels);
  if (wanted.length === 0) return false;
  const labels = (pod.metadata.labels ?? {}) as Record<string, unknown>;
  return wanted.every(([k, v]) => labels[k] === v);
}

/** `podutil.IsPodReady`: the Ready condition is True. */
function isReady(pod: FakePod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
