/**
 * The checks of one scenario step (docs/replay-format.md, `steps[]`), shared by the document and the
 * JSONL forms: `at` (a Go duration, strictly after the previous step's), summaries inline or by
 * file, reclaimErrors, killFailures, addPods, updatePods, removePods, admit, and evictd's
 * informational nodeMemoryViews (checked, kept exact, never decided on). Steps are loaded one
 * at a time, in order, so a streamed trace is checked and replayed without being held in memory.
 */
import { durationToMs, DurationError, parseGoDuration } from "../../core/time/duration.js";
import { pathIndex, pathKey, type IssueList } from "../../core/issues.js";
import type { Pod } from "../../core/model.js";
import { decodeLocatedPods, decodePodList } from "../../core/pod/decode-pod.js";
import { validateSummary } from "../../core/summary/validate-summary.js";
import type { RawSummary, ScenarioStep } from "../../app/replay/scenario.js";
import { isRawObject } from "../../core/raw/raw-object.js";
import { describeValue } from "../../core/raw/describe-value.js";
import {
  decodeNodeMemoryViewsRecord,
  NODE_MEMORY_VIEWS_FIELD,
} from "../../core/memory/node-memory-views-record.js";
import type { ReferencedFiles } from "./referenced-files.js";

const STEP_KEYS = new Set([
  "at",
  "summary",
  "afterReclaim",
  "reclaimErrors",
  "killFailures",
  "addPods",
  "updatePods",
  "removePods",
  "admit",
  NODE_MEMORY_VIEWS_FIELD,
]);

function formatMs(ms: number): string {
  return `${ms / 1000}s`;
}

export class StepLoader {
  private readonly files: ReferencedFiles;
  /** The last `at` that parsed, for the ordering check. */
  private lastAt = -Infinity;
  /**
   * UIDs of every pod the scenario has defined so far (its `pods`, then each step's `addPods`):
   * what `updatePods` may name. Undefined when the header did not decode: its pods are unknown,
   * and an error for every update would only repeat the header's.
   */
  private readonly definedUids: Set<string> | undefined;

  constructor(files: ReferencedFiles, initialPods?: readonly Pod[]) {
    this.files = files;
    this.definedUids = initialPods === undefined ? undefined : new Set(initialPods.map((p) => p.uid));
  }

  /**
   * Checks step `index` (its issues go to `issues` with paths `steps[index]...`; problems inside
   * referenced files go to the files' own list) and decodes it. Returns undefined when the step has
   * an error, so that it is never replayed.
   */
  async load(raw: unknown, index: number, issues: IssueList): Promise<ScenarioStep | undefined> {
    const before = issues.items.length;
    const path = pathIndex("steps", index);
    if (!isRawObject(raw)) {
      issues.error(path, "type", `expected a step mapping with at least "at", got ${describeValue(raw)}`);
      return undefined;
    }
    for (const k of Object.keys(raw)) {
      if (!STEP_KEYS.has(k))
        issues.warning(pathKey(path, k), "unknown-field", `unknown field ${JSON.stringify(k)} (ignored)`);
    }
    let atMs = 0;
    let atValid = false;
    const at = raw["at"];
    if (at === undefined)
      issues.error(
        `${path}.at`,
        "required",
        "missing: every step needs `at`, a Go duration since start such as 30s",
      );
    else if (typeof at !== "string" && at !== 0)
      issues.error(`${path}.at`, "type", `expected a Go duration such as "30s", got ${describeValue(at)}`);
    else {
      try {
        const ns = parseGoDuration(String(at));
        if (ns < 0n) issues.error(`${path}.at`, "negative", `must not be negative, got ${describeValue(at)}`);
        else atValid = true;
        atMs = durationToMs(ns);
      } catch (e) {
        if (!(e instanceof DurationError)) throw e;
        // (DurationError carries Go's exact message.)
        issues.error(`${path}.at`, "invalid-duration", e.message);
      }
    }

    let filesOk = true;
    const summaryAt = async (key: "summary" | "afterReclaim"): Promise<RawSummary | undefined> => {
      const v = raw[key];
      if (v === undefined) return undefined;
      const s = await this.loadSummary(v, `${path}.${key}`, issues);
      if (s === undefined) filesOk = false;
      return s;
    };
    const summary = await summaryAt("summary");
    const afterReclaim = await summaryAt("afterReclaim");

    const reclaimErrors: Record<string, string> = {};
    const re = raw["reclaimErrors"];
    if (re !== undefined) {
      if (!isRawObject(re))
        issues.error(
          `${path}.reclaimErrors`,
          "type",
          `expected {images: "...", containers: "..."}, got ${describeValue(re)}`,
        );
      else {
        for (const [k, v] of Object.entries(re)) {
          if (k !== "images" && k !== "containers")
            issues.error(
              pathKey(`${path}.reclaimErrors`, k),
              "enum",
              `expected images or containers, got ${JSON.stringify(k)}`,
            );
          else if (typeof v !== "string")
            issues.error(
              pathKey(`${path}.reclaimErrors`, k),
              "type",
              `expected an error message string, got ${describeValue(v)}`,
            );
          else reclaimErrors[k] = v;
        }
      }
    }
    const stringList = (key: string): string[] => {
      const v = raw[key];
      if (v === undefined) return [];
      if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
        issues.error(
          `${path}.${key}`,
          "type",
          `expected a list of pods as "namespace/name" or UID, got ${describeValue(v)}`,
        );
        return [];
      }
      return v;
    };
    const podList = (key: string): Pod[] => {
      const v = raw[key];
      if (v === undefined) return [];
      return decodePodList(v, `${path}.${key}`, issues);
    };
    const addPods = podList("addPods");
    for (const p of addPods) this.definedUids?.add(p.uid);
    const views = raw[NODE_MEMORY_VIEWS_FIELD];
    const nodeMemoryViews =
      views === undefined
        ? undefined
        : decodeNodeMemoryViewsRecord(views, pathKey(path, NODE_MEMORY_VIEWS_FIELD), issues);
    const step: ScenarioStep = {
      index,
      atMs,
      ...(summary !== undefined ? { summary } : {}),
      ...(afterReclaim !== undefined ? { afterReclaim } : {}),
      reclaimErrors,
      killFailures: stringList("killFailures"),
      addPods,
      updatePods: this.updatedPods(raw["updatePods"], `${path}.updatePods`, issues),
      removePods: stringList("removePods"),
      admit: podList("admit"),
      ...(nodeMemoryViews !== undefined ? { nodeMemoryViews } : {}),
    };
    // Only `at`s that parsed are compared: a bad one is reported once, as itself.
    if (atValid) {
      if (atMs <= this.lastAt) {
        issues.error(
          `${path}.at`,
          "order",
          `steps must be strictly increasing in time: ${formatMs(atMs)} is not after the previous step`,
        );
      }
      this.lastAt = atMs;
    }
    let failed = !filesOk;
    for (let i = before; i < issues.items.length && !failed; i++)
      failed = issues.items[i]?.severity === "error";
    return failed ? undefined : step;
  }

  /**
   * `updatePods` (docs/replay-format.md, "resized pods"): Pods as for `addPods`, each of which must
   * be one the scenario defined before (in `pods` or an `addPods` up to this step's): an update of a
   * pod never defined is a broken trace, an error naming the entry. Whether the pod is still active
   * when the step is replayed depends on the replay's own evictions, so that is the replay's to see.
   */
  private updatedPods(raw: unknown, path: string, issues: IssueList): Pod[] {
    if (raw === undefined) return [];
    const located = decodeLocatedPods(raw, path, issues);
    const known = this.definedUids;
    if (known === undefined) return located.map((p) => p.pod);
    return located.flatMap(({ pod, path: at }) => {
      if (known.has(pod.uid)) return [pod];
      issues.error(
        at,
        "unknown-pod",
        `no pod with uid ${JSON.stringify(pod.uid)} (${pod.key}) was defined before: updatePods replaces a pod of pods or addPods, it does not add one`,
      );
      return [];
    });
  }

  /** A summary inline (checked in place) or in a referenced file (checked once per file). */
  private async loadSummary(raw: unknown, path: string, issues: IssueList): Promise<RawSummary | undefined> {
    if (typeof raw !== "string") {
      validateSummary(raw, path, issues);
      return { raw, path };
    }
    const f = await this.files.load(raw, path, (value, local) => validateSummary(value, path, local));
    return f.ok ? { raw: f.value, path } : undefined;
  }
}
