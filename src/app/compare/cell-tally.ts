/**
 * Tallies the step outcomes of one trace replayed under one configuration into a cell's figures
 * (cell-result.ts): evictions, OOM-risk moments, time under each condition, refused admissions,
 * divergences and what every signal had left. Pure; fed one outcome at a time.
 */
import type { NodeCondition } from "../../core/model.js";
import { isOomRisk } from "../../core/oom-risk.js";
import type { StepOutcome } from "../replay/run-replay.js";
import type { CellFigures } from "./cell-result.js";
import { LogHistogram } from "./log-histogram.js";

const CONDITIONS: readonly NodeCondition[] = ["MemoryPressure", "DiskPressure", "PIDPressure"];

const sortedRecord = <T>(m: ReadonlyMap<string, T>): Record<string, T> =>
  Object.fromEntries([...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));

export class CellTally {
  #steps = 0;
  #first: number | undefined;
  #last: number | undefined;
  #lastConditions: readonly NodeCondition[] = [];
  #evictions = 0;
  readonly #podsEvicted = new Set<string>();
  readonly #bySignal = new Map<string, number>();
  #oomRiskSteps = 0;
  readonly #pressureMs: Record<NodeCondition, number> = {
    MemoryPressure: 0,
    DiskPressure: 0,
    PIDPressure: 0,
  };
  #refused = 0;
  readonly #diverged = new Set<string>();
  #divergedSteps = 0;
  readonly #headroom = new Map<string, LogHistogram>();
  #memoryCapacity: number | undefined;

  /** `nodeMemoryCapacity` when the trace's Node gives it: else the first memory sample's. */
  constructor(nodeMemoryCapacity?: bigint) {
    if (nodeMemoryCapacity !== undefined) this.#memoryCapacity = Number(nodeMemoryCapacity);
  }

  step(o: StepOutcome): void {
    this.#steps++;
    if (this.#last !== undefined)
      for (const c of this.#lastConditions) this.#pressureMs[c] += o.time - this.#last;
    this.#first ??= o.time;
    this.#last = o.time;
    const r = o.report;
    this.#lastConditions = r.conditions;
    for (const e of r.evictions) {
      this.#evictions++;
      this.#podsEvicted.add(e.pod.uid);
      this.#bySignal.set(e.signal, (this.#bySignal.get(e.signal) ?? 0) + 1);
    }
    for (const [signal, observation] of r.observations) {
      const available = Number(observation.available);
      let h = this.#headroom.get(signal);
      if (h === undefined) {
        h = new LogHistogram();
        this.#headroom.set(signal, h);
      }
      h.add(available);
      if (signal === "memory.available") {
        const capacity = Number(observation.capacity);
        this.#memoryCapacity ??= capacity;
        if (isOomRisk(available, capacity)) this.#oomRiskSteps++;
      }
    }
    this.#refused += o.admission.filter((a) => !a.result.admit).length;
    if (o.whatIf !== undefined) {
      this.#refused += o.whatIf.refusedOnArrival.length;
      if (o.whatIf.diverged.length > 0) this.#divergedSteps++;
      for (const p of o.whatIf.diverged) this.#diverged.add(p.uid);
    }
  }

  /** The node's memory capacity in bytes, once known. */
  get memoryCapacity(): number | undefined {
    return this.#memoryCapacity;
  }

  /** The figures; `allocatable` is the configuration's allocatable memory on this node, when known. */
  figures(allocatable: number | undefined): CellFigures {
    return {
      steps: this.#steps,
      spanMs: this.#first === undefined || this.#last === undefined ? 0 : this.#last - this.#first,
      evictions: this.#evictions,
      podsEvicted: this.#podsEvicted.size,
      bySignal: sortedRecord(this.#bySignal),
      oomRiskSteps: this.#oomRiskSteps,
      pressureMs: Object.fromEntries(CONDITIONS.map((c) => [c, this.#pressureMs[c]])) as Record<
        NodeCondition,
        number
      >,
      refusedAdmissions: this.#refused,
      divergedPods: this.#diverged.size,
      divergedSteps: this.#divergedSteps,
      headroom: sortedRecord(new Map([...this.#headroom].map(([k, h]) => [k, h.toJSON()]))),
      memoryCapacityBytes: this.#memoryCapacity ?? null,
      allocatableBytes: allocatable ?? null,
    };
  }
}
