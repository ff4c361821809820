/**
 * Loads a replay scenario (docs/replay-format.md) from a file or stdin: parses it, resolves the
 * files it references (config, pods, summaries) relative to the scenario, and validates all of it
 * up front, collecting every problem, so that a bad scenario prints nothing on stdout.
 */
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import { parseGoDuration, durationToMs, DurationError } from "../../core/duration.js";
import { IssueList, pathIndex, pathKey, type Issue } from "../../core/issues.js";
import type { FilesystemLayout, Pod } from "../../core/model.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { parseQuantity, QuantityError, quantityValue } from "../../core/quantity.js";
import { validateSummary } from "../../core/summary/validate-summary.js";
import { parseRfc3339 } from "../../core/rfc3339-time.js";
import type { RawSummary, Scenario, ScenarioStep } from "../../app/replay/scenario.js";
import { loadKubeletConfigFile, locateIssues } from "../config-file/index.js";
import { decodeText, parseStructuredText, readStructuredFile, type StructuredFile } from "../files/structured-file.js";

export type ScenarioResult = { ok: true; scenario: Scenario } | { ok: false; issues: Issue[] };

const TOP_KEYS = new Set(["start", "config", "flags", "node", "filesystems", "evictedPods", "pods", "steps"]);
const STEP_KEYS = new Set([
  "at",
  "summary",
  "afterReclaim",
  "reclaimErrors",
  "killFailures",
  "addPods",
  "removePods",
  "admit",
]);
const LAYOUTS: readonly FilesystemLayout[] = ["single", "dedicated", "split"];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const show = (v: unknown): string => (typeof v === "bigint" ? v.toString() : JSON.stringify(v) ?? String(v));

/** How a file is named in messages: relative to the working directory when inside it. */
function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/**
 * Files the scenario references (pods, summaries), each read and validated once however many steps
 * point at it: a recorded trace may reference one file thousands of times. Problems inside a file
 * are located at file:line:column.
 */
class ReferencedFiles {
  private readonly files = new Map<string, Promise<{ value: unknown; ok: boolean }>>();
  private readonly baseDir: string;
  private readonly external: Issue[];
  constructor(baseDir: string, external: Issue[]) {
    this.baseDir = baseDir;
    this.external = external;
  }

  /** Reads `ref` and runs `check` on it once; `path` is the issue path of the first reference. */
  load(ref: string, path: string, check: (value: unknown, issues: IssueList) => void): Promise<{ value: unknown; ok: boolean }> {
    const file = resolve(this.baseDir, ref);
    let p = this.files.get(file);
    if (p === undefined) {
      p = readStructuredFile(file, path).then((f) => {
        const shown = displayPath(file);
        if (!f.ok) {
          this.external.push(...f.issues.map((i) => ({ ...i, file: shown })));
          return { value: undefined, ok: false };
        }
        const local = new IssueList();
        check(f.value, local);
        this.external.push(...f.warnings.map((i) => ({ ...i, file: shown })), ...locateIssues(local.items, path, f.positions, shown));
        return { value: f.value, ok: !local.hasErrors };
      });
      this.files.set(file, p);
    }
    return p;
  }
}

export async function loadScenarioFile(file: string): Promise<ScenarioResult> {
  const parsed = await readStructuredFile(file, "scenario");
  if (!parsed.ok) return parsed;
  return loadScenario(parsed, file, dirname(resolve(file)));
}

export async function loadScenarioText(text: string, label: string, baseDir: string): Promise<ScenarioResult> {
  const parsed = parseStructuredText(text, label, "scenario");
  if (!parsed.ok) return parsed;
  return loadScenario(parsed, label, baseDir);
}

/** A scenario read from raw bytes (stdin), checked like a file: not empty, not binary, UTF-8. */
export async function loadScenarioBytes(bytes: Uint8Array, label: string, baseDir: string): Promise<ScenarioResult> {
  const text = decodeText(bytes, label, "scenario");
  if (!text.ok) return text;
  const parsed = parseStructuredText(text.text, label, "scenario");
  if (!parsed.ok) return parsed;
  return loadScenario(parsed, label, baseDir);
}

async function loadScenario(parsed: StructuredFile & { ok: true }, label: string, baseDir: string): Promise<ScenarioResult> {
  const issues = new IssueList();
  const external: Issue[] = [];
  const files = new ReferencedFiles(baseDir, external);
  const root = parsed.value;
  if (!isObj(root)) {
    return { ok: false, issues: [{ severity: "error", path: "scenario", code: "type", message: `expected a mapping at the top level, got ${show(root)}`, file: label }] };
  }
  for (const k of Object.keys(root)) {
    if (!TOP_KEYS.has(k)) issues.warning(pathKey("", k), "unknown-field", `unknown field ${JSON.stringify(k)} (ignored)`);
  }

  let start = 0;
  if (root["start"] !== undefined) {
    const t = typeof root["start"] === "string" ? parseRfc3339(root["start"]) : "invalid";
    if (typeof t !== "number") issues.error("start", "invalid-time", `expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got ${show(root["start"])}`);
    else start = t;
  }

  // Configuration: an inline KubeletConfiguration or a path to one, then flags over it.
  let configValue: unknown;
  let configIssuesFile: string | undefined;
  let configPositions: Awaited<ReturnType<typeof loadKubeletConfigFile>> | undefined;
  if (typeof root["config"] === "string") {
    const configFile = resolve(baseDir, root["config"]);
    configIssuesFile = displayPath(configFile);
    configPositions = await loadKubeletConfigFile(configFile);
    if (!configPositions.ok) external.push(...configPositions.issues);
    else {
      configValue = configPositions.value;
      external.push(...configPositions.warnings);
    }
  } else if (root["config"] !== undefined && root["config"] !== null) {
    const inline = root["config"];
    // An inline config is a KubeletConfiguration by definition: type meta is optional here.
    configValue =
      isObj(inline) && inline["apiVersion"] === undefined && inline["kind"] === undefined
        ? { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration", ...inline }
        : inline;
  }
  let flags: string[] = [];
  if (root["flags"] !== undefined) {
    if (!Array.isArray(root["flags"]) || !root["flags"].every((f) => typeof f === "string")) {
      issues.error("flags", "type", `expected a list of kubelet flags such as ["--eviction-hard=memory.available<100Mi"], got ${show(root["flags"])}`);
    } else flags = root["flags"];
  }
  const built =
    configPositions !== undefined && !configPositions.ok
      ? undefined
      : buildEvictionConfig({ ...(configValue !== undefined ? { config: configValue } : {}), configPath: "config", flags, flagsPath: "flags" });
  const configIssues = built === undefined ? [] : built.ok ? built.warnings : built.issues;
  if (configIssuesFile !== undefined && configPositions?.ok === true) {
    external.push(...locateIssues(configIssues, "config", configPositions.positions, configIssuesFile));
  } else {
    for (const i of configIssues) issues.items.push(i);
  }

  // Node: only the memory capacity matters (oom_score_adj).
  let nodeMemoryCapacity: bigint | undefined;
  const node = root["node"];
  if (node !== undefined && node !== null) {
    const mem = isObj(node) && isObj(node["status"]) && isObj(node["status"]["capacity"]) ? node["status"]["capacity"]["memory"] : undefined;
    if (!isObj(node)) issues.error("node", "type", `expected a v1 Node object, got ${show(node)}`);
    else if (mem !== undefined) {
      try {
        if (typeof mem !== "string" && typeof mem !== "number") throw new QuantityError("expected a quantity such as 16Gi", show(mem));
        nodeMemoryCapacity = quantityValue(parseQuantity(String(mem)));
      } catch (e) {
        if (!(e instanceof QuantityError)) throw e;
        issues.error("node.status.capacity.memory", "invalid-quantity", `${show(mem)}: ${e.message}`);
      }
    }
  }

  let filesystems: FilesystemLayout | undefined;
  if (root["filesystems"] !== undefined) {
    const f = root["filesystems"];
    if (typeof f === "string" && (LAYOUTS as readonly string[]).includes(f)) filesystems = f as FilesystemLayout;
    else issues.error("filesystems", "enum", `expected one of single, dedicated, split, got ${show(f)}`);
  }
  let evictedPods: "remove" | "keep" = "remove";
  if (root["evictedPods"] !== undefined) {
    const e = root["evictedPods"];
    if (e === "remove" || e === "keep") evictedPods = e;
    else issues.error("evictedPods", "enum", `expected remove or keep, got ${show(e)}`);
  }

  const pods = await loadPods(root["pods"], "pods", files, issues);

  const steps: ScenarioStep[] = [];
  const rawSteps = root["steps"];
  if (rawSteps === undefined) issues.error("steps", "required", "missing: a scenario needs a list of steps");
  else if (!Array.isArray(rawSteps)) issues.error("steps", "type", `expected a list of steps, got ${show(rawSteps)}`);
  else {
    let lastAt = -Infinity;
    for (let i = 0; i < rawSteps.length; i++) {
      const step = await loadStep(rawSteps[i], i, files, issues);
      if (step === undefined) continue;
      // Only `at`s that parsed are compared: a bad one is reported once, as itself.
      if (step.atValid) {
        if (step.atMs <= lastAt) {
          issues.error(pathIndex("steps", i) + ".at", "order", `steps must be strictly increasing in time: ${formatMs(step.atMs)} is not after the previous step`);
        }
        lastAt = step.atMs;
      }
      const { atValid: _valid, ...scenarioStep } = step;
      steps.push(scenarioStep);
    }
  }

  const located = locateIssues(issues.items, "", parsed.positions, label);
  const all = [...parsed.warnings, ...located, ...external];
  if (all.some((i) => i.severity === "error") || built === undefined || !built.ok) {
    return { ok: false, issues: all };
  }
  return {
    ok: true,
    scenario: {
      start,
      config: built.config,
      ...(filesystems !== undefined ? { filesystems } : {}),
      evictedPods,
      ...(nodeMemoryCapacity !== undefined ? { nodeMemoryCapacity } : {}),
      pods,
      steps,
      warnings: all,
    },
  };
}

function formatMs(ms: number): string {
  return `${ms / 1000}s`;
}

/** Pods inline (a list, a PodList, or one Pod) or in a referenced file. */
async function loadPods(raw: unknown, path: string, files: ReferencedFiles, issues: IssueList): Promise<Pod[]> {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== "string") return decodePodList(raw, path, issues);
  let pods: Pod[] = [];
  await files.load(raw, path, (value, local) => {
    pods = decodePodList(value, path, local);
  });
  return pods;
}

async function loadSummary(raw: unknown, path: string, files: ReferencedFiles, issues: IssueList): Promise<RawSummary | undefined> {
  if (typeof raw !== "string") {
    validateSummary(raw, path, issues);
    return { raw, path };
  }
  const f = await files.load(raw, path, (value, local) => validateSummary(value, path, local));
  return f.ok ? { raw: f.value, path } : undefined;
}

async function loadStep(raw: unknown, i: number, files: ReferencedFiles, issues: IssueList): Promise<(ScenarioStep & { atValid: boolean }) | undefined> {
  const path = pathIndex("steps", i);
  if (!isObj(raw)) {
    issues.error(path, "type", `expected a step mapping with at least "at", got ${show(raw)}`);
    return undefined;
  }
  for (const k of Object.keys(raw)) {
    if (!STEP_KEYS.has(k)) issues.warning(pathKey(path, k), "unknown-field", `unknown field ${JSON.stringify(k)} (ignored)`);
  }
  let atMs = 0;
  let atValid = false;
  const at = raw["at"];
  if (at === undefined) issues.error(`${path}.at`, "required", "missing: every step needs `at`, a Go duration since start such as 30s");
  else if (typeof at !== "string" && at !== 0) issues.error(`${path}.at`, "type", `expected a Go duration such as "30s", got ${show(at)}`);
  else {
    try {
      const ns = parseGoDuration(String(at));
      if (ns < 0n) issues.error(`${path}.at`, "negative", `must not be negative, got ${show(at)}`);
      else atValid = true;
      atMs = durationToMs(ns);
    } catch (e) {
      if (!(e instanceof DurationError)) throw e;
      // (DurationError carries Go's exact message.)
      issues.error(`${path}.at`, "invalid-duration", e.message);
    }
  }

  const summary = raw["summary"] === undefined ? undefined : await loadSummary(raw["summary"], `${path}.summary`, files, issues);
  const afterReclaim =
    raw["afterReclaim"] === undefined ? undefined : await loadSummary(raw["afterReclaim"], `${path}.afterReclaim`, files, issues);

  const reclaimErrors: Record<string, string> = {};
  const re = raw["reclaimErrors"];
  if (re !== undefined) {
    if (!isObj(re)) issues.error(`${path}.reclaimErrors`, "type", `expected {images: "...", containers: "..."}, got ${show(re)}`);
    else {
      for (const [k, v] of Object.entries(re)) {
        if (k !== "images" && k !== "containers") issues.error(pathKey(`${path}.reclaimErrors`, k), "enum", `expected images or containers, got ${JSON.stringify(k)}`);
        else if (typeof v !== "string") issues.error(pathKey(`${path}.reclaimErrors`, k), "type", `expected an error message string, got ${show(v)}`);
        else reclaimErrors[k] = v;
      }
    }
  }
  const stringList = (key: string): string[] => {
    const v = raw[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
      issues.error(`${path}.${key}`, "type", `expected a list of pods as "namespace/name" or UID, got ${show(v)}`);
      return [];
    }
    return v;
  };
  const podList = (key: string): Pod[] => {
    const v = raw[key];
    if (v === undefined) return [];
    return decodePodList(v, `${path}.${key}`, issues);
  };
  return {
    index: i,
    atMs,
    atValid,
    ...(summary !== undefined ? { summary } : {}),
    ...(afterReclaim !== undefined ? { afterReclaim } : {}),
    reclaimErrors,
    killFailures: stringList("killFailures"),
    addPods: podList("addPods"),
    removePods: stringList("removePods"),
    admit: podList("admit"),
  };
}
