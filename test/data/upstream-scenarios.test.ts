/**
 * Upstream kubelet eviction tests replayed through `evictd replay`: every test/data/upstream/*.yaml runs
 * once and its jsonl output is checked against the assertions in the matching *.expect.json; the
 * ParseThresholdConfig cases run through the library's buildEvictionConfig, and one of them per exit
 * code as a config-only scenario through `evictd replay`. Contract: docs replay-format.md.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { formatThresholdValue } from "../../src/app/replay/records.js";
import { buildEvictionConfig } from "../../src/core/config/build-eviction-config.js";
import { formatIssue } from "../../src/core/issues.js";
import type { EvictionConfig } from "../../src/core/model.js";
import { formatDurationMs } from "../../src/core/time/duration.js";
import { parseGoDuration, sameGoDuration } from "../support/oracle/duration.js";
import { sameThresholdValue } from "../support/oracle/threshold-value.js";
import { REPO_ROOT } from "../support/repo-paths.js";

// ---------------------------------------------------------------------------------------------
// Locations. The suite runs from test/ (tsx) or dist/test/ (npm test); the scenarios stay in the
// source tree, so the repository root is found by walking up to evictd's package.json.

const ROOT = REPO_ROOT;
const SCENARIO_DIR = join(ROOT, "test", "data", "upstream");
const CASES_FILE = join(SCENARIO_DIR, "parse-threshold-config.cases.json");
const CLI = join(ROOT, "bin", "evictd.js");
// bin/evictd.js loads the compiled CLI; without a build there is nothing to replay against.
const CLI_SKIP = existsSync(join(ROOT, "dist", "src", "cli", "main.js"))
  ? false
  : "evictd is not built (dist/src/cli/main.js missing): run `npm run build` first";

// ---------------------------------------------------------------------------------------------
// Expectation files (*.expect.json). Unknown keys are rejected so a typo cannot silently turn an
// assertion off.

interface ThresholdExpectation {
  signal: string;
  value: string;
  gracePeriod: string;
  minReclaim?: string;
  hard: boolean;
  derivedFrom?: string;
}

interface ConfigExpectation {
  /** Exact set of thresholds, leaving out the containerfs copies the engine derives. */
  thresholds?: ThresholdExpectation[];
  /** Exact set of containerfs.* thresholds. */
  containerfsThresholds?: ThresholdExpectation[];
  pressureTransitionPeriod?: string;
  maxPodGracePeriodSeconds?: number;
}

interface PodCondition {
  type: string;
  status: string;
  reason: string;
  message?: string;
}

interface StepExpectation {
  index: number;
  comment?: string;
  /** Exact list, in the output's order (MemoryPressure, DiskPressure, PIDPressure). */
  conditions?: string[];
  conditionsInclude?: string[];
  conditionsExclude?: string[];
  /** Exact list of evicted pods, in order. */
  evicted?: string[];
  evictedCount?: number;
  notEvicted?: string[];
  /** Checked on every eviction of the step (at least one is required). */
  gracePeriodSeconds?: number;
  effectiveGracePeriodSeconds?: number;
  killFailed?: boolean;
  evictionKind?: string;
  message?: string;
  messageIncludes?: string[];
  /** The DisruptionTarget condition written with every eviction of the step; null: none. */
  disruptionCondition?: PodCondition | null;
  /** Verdicts for the step's `admit` pods, in order. */
  admission?: boolean[];
  /** Rejection message per admitted pod key. */
  admissionMessages?: Record<string, string>;
  /** Exact list of node-level reclaim functions that ran; [] means none ran. */
  reclaimRan?: string[];
  reclaimIncludes?: string[];
  reclaimExcludes?: string[];
  reclaimSufficient?: boolean;
  ranking?: string[];
  rankingPrefix?: string[];
  /** Exact set of refused pods (order ignored). */
  refused?: string[];
  refusedReason?: string;
  /** Signal of the threshold acted on; null when nothing was acted on. */
  actedOn?: string | null;
  /** Signals of the thresholds met, as a multiset (order ignored). */
  thresholdsMet?: string[];
  /** available / capacity per signal, compared as quantities. */
  observations?: Record<string, { available?: string; capacity?: string }>;
}

interface ScenarioExpectation {
  description: string;
  upstream: string;
  notes?: string[];
  why?: string[];
  config?: ConfigExpectation;
  steps: StepExpectation[];
}

const SCENARIO_KEYS = new Set(["description", "upstream", "notes", "why", "config", "steps"]);
const CONFIG_KEYS = new Set([
  "thresholds",
  "containerfsThresholds",
  "pressureTransitionPeriod",
  "maxPodGracePeriodSeconds",
]);
const THRESHOLD_KEYS = new Set(["signal", "value", "gracePeriod", "minReclaim", "hard", "derivedFrom"]);
const STEP_KEYS = new Set([
  "index",
  "comment",
  "conditions",
  "conditionsInclude",
  "conditionsExclude",
  "evicted",
  "evictedCount",
  "notEvicted",
  "gracePeriodSeconds",
  "effectiveGracePeriodSeconds",
  "killFailed",
  "evictionKind",
  "message",
  "messageIncludes",
  "disruptionCondition",
  "admission",
  "admissionMessages",
  "reclaimRan",
  "reclaimIncludes",
  "reclaimExcludes",
  "reclaimSufficient",
  "ranking",
  "rankingPrefix",
  "refused",
  "refusedReason",
  "actedOn",
  "thresholdsMet",
  "observations",
]);
const STRING_LIST_STEP_KEYS = [
  "conditions",
  "conditionsInclude",
  "conditionsExclude",
  "evicted",
  "notEvicted",
  "messageIncludes",
  "reclaimRan",
  "reclaimIncludes",
  "reclaimExcludes",
  "ranking",
  "rankingPrefix",
  "refused",
  "thresholdsMet",
] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

function unknownKeys(obj: Record<string, unknown>, allowed: Set<string>, where: string): string[] {
  return Object.keys(obj)
    .filter((k) => !allowed.has(k))
    .map((k) => `${where}: unknown key "${k}"`);
}

function thresholdProblems(v: unknown, where: string): string[] {
  if (!isRecord(v)) return [`${where}: not an object`];
  const problems = unknownKeys(v, THRESHOLD_KEYS, where);
  for (const k of ["signal", "value", "gracePeriod"]) {
    if (typeof v[k] !== "string") problems.push(`${where}.${k}: string required`);
  }
  if (typeof v["hard"] !== "boolean") problems.push(`${where}.hard: boolean required`);
  for (const k of ["minReclaim", "derivedFrom"]) {
    if (k in v && typeof v[k] !== "string") problems.push(`${where}.${k}: string expected`);
  }
  return problems;
}

function stepProblems(v: unknown, where: string): string[] {
  if (!isRecord(v)) return [`${where}: not an object`];
  const problems = unknownKeys(v, STEP_KEYS, where);
  if (typeof v["index"] !== "number" || !Number.isInteger(v["index"]))
    problems.push(`${where}.index: integer required`);
  for (const k of STRING_LIST_STEP_KEYS) {
    if (k in v && !isStringList(v[k])) problems.push(`${where}.${k}: list of strings expected`);
  }
  for (const k of ["evictedCount", "gracePeriodSeconds", "effectiveGracePeriodSeconds"]) {
    if (k in v && typeof v[k] !== "number") problems.push(`${where}.${k}: number expected`);
  }
  for (const k of ["killFailed", "reclaimSufficient"]) {
    if (k in v && typeof v[k] !== "boolean") problems.push(`${where}.${k}: boolean expected`);
  }
  for (const k of ["message", "evictionKind", "refusedReason", "comment"]) {
    if (k in v && typeof v[k] !== "string") problems.push(`${where}.${k}: string expected`);
  }
  if ("actedOn" in v && v["actedOn"] !== null && typeof v["actedOn"] !== "string")
    problems.push(`${where}.actedOn: string or null expected`);
  if (
    "admission" in v &&
    !(Array.isArray(v["admission"]) && v["admission"].every((x) => typeof x === "boolean"))
  ) {
    problems.push(`${where}.admission: list of booleans expected`);
  }
  if (
    "admissionMessages" in v &&
    !(
      isRecord(v["admissionMessages"]) &&
      Object.values(v["admissionMessages"]).every((x) => typeof x === "string")
    )
  ) {
    problems.push(`${where}.admissionMessages: map of strings expected`);
  }
  if ("disruptionCondition" in v && v["disruptionCondition"] !== null) {
    const c = v["disruptionCondition"];
    if (
      !isRecord(c) ||
      typeof c["type"] !== "string" ||
      typeof c["status"] !== "string" ||
      typeof c["reason"] !== "string"
    ) {
      problems.push(`${where}.disruptionCondition: {type, status, reason, message?} or null expected`);
    }
  }
  if ("observations" in v) {
    const o = v["observations"];
    if (
      !isRecord(o) ||
      !Object.values(o).every((x) => isRecord(x) && Object.values(x).every((q) => typeof q === "string"))
    ) {
      problems.push(`${where}.observations: map of {available?, capacity?} strings expected`);
    }
  }
  return problems;
}

function parseExpectation(raw: unknown, file: string): ScenarioExpectation {
  const problems: string[] = [];
  if (!isRecord(raw)) throw new Error(`${file}: not a JSON object`);
  problems.push(...unknownKeys(raw, SCENARIO_KEYS, file));
  if (typeof raw["description"] !== "string") problems.push(`${file}: description (string) required`);
  if (typeof raw["upstream"] !== "string") problems.push(`${file}: upstream (string) required`);
  for (const k of ["notes", "why"]) {
    if (k in raw && !isStringList(raw[k])) problems.push(`${file}: ${k} must be a list of strings`);
  }
  const config = raw["config"];
  if (config !== undefined) {
    if (!isRecord(config)) problems.push(`${file}: config must be an object`);
    else {
      problems.push(...unknownKeys(config, CONFIG_KEYS, `${file} config`));
      for (const k of ["thresholds", "containerfsThresholds"]) {
        const list = config[k];
        if (list === undefined) continue;
        if (!Array.isArray(list)) problems.push(`${file} config.${k}: list expected`);
        else list.forEach((t, i) => problems.push(...thresholdProblems(t, `${file} config.${k}[${i}]`)));
      }
    }
  }
  const steps = raw["steps"];
  if (!Array.isArray(steps)) problems.push(`${file}: steps (list) required`);
  else steps.forEach((s, i) => problems.push(...stepProblems(s, `${file} steps[${i}]`)));
  if (problems.length > 0) throw new Error(`invalid expectation file:\n  ${problems.join("\n  ")}`);
  return raw as unknown as ScenarioExpectation;
}

// ---------------------------------------------------------------------------------------------
// Value comparison (test/support/oracle): quantities exactly (as rationals), percentages as float32
// fractions (the way the kubelet parses them), Go durations in nanoseconds.

const show = (v: unknown): string => JSON.stringify(v) ?? "undefined";

/** Fails with one line per problem under a header naming the scenario, step and source. */
function assertNoProblems(problems: readonly string[], header: string): void {
  if (problems.length > 0) assert.fail(`${header}:\n  ${problems.join("\n  ")}`);
}

// ---------------------------------------------------------------------------------------------
// Replay output (replay-format.md, --output jsonl): a config line, then one line per step.

interface OutThreshold {
  signal: string;
  operator?: string;
  value?: string;
  gracePeriod?: string;
  minReclaim?: string;
  hard?: boolean;
  derivedFrom?: string;
}

interface ConfigLine {
  type: "config";
  thresholds: OutThreshold[];
  evictionMaxPodGracePeriod?: number;
  evictionPressureTransitionPeriod?: string;
  filesystems?: string;
}

interface OutEviction {
  pod: string;
  kind?: string;
  signal?: string;
  gracePeriodSeconds?: number;
  effectiveGracePeriodSeconds?: number;
  killFailed?: boolean;
  message?: string;
  condition?: PodCondition;
}

interface StepLine {
  type: "step";
  at: string;
  observations?: Record<string, { available?: string; capacity?: string }>;
  thresholdsMet?: { signal: string }[];
  conditions?: string[];
  actedOn?: { signal: string } | null;
  reclaim?: { ran: string[]; sufficient: boolean } | null;
  evictions?: OutEviction[];
  refused?: { pod: string; reason: string }[];
  ranking?: string[];
  admission?: { pod: string; admit: boolean; reason?: string; message?: string }[];
}

interface ReplayRun {
  status: number | null;
  stdout: string;
  stderr: string;
  config?: ConfigLine;
  steps: StepLine[];
  /** Problems with the run itself (exit code, malformed lines). */
  problems: string[];
}

function runReplay(file: string): ReplayRun {
  const r = spawnSync(process.execPath, [CLI, "replay", file, "--output", "jsonl"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  });
  const run: ReplayRun = {
    status: r.status,
    stdout: r.stdout ?? "",
    stderr: r.stderr ?? "",
    steps: [],
    problems: [],
  };
  if (r.error !== undefined) run.problems.push(`could not run evictd: ${r.error.message}`);
  if (r.status !== 0)
    run.problems.push(`evictd replay exited ${String(r.status)}; stderr:\n${run.stderr.trim()}`);
  const lines = run.stdout.split("\n").filter((l) => l.trim() !== "");
  lines.forEach((line, i) => {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      run.problems.push(`stdout line ${i} is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (!isRecord(v)) run.problems.push(`stdout line ${i} is not a JSON object`);
    else if (i === 0 && v["type"] === "config" && Array.isArray(v["thresholds"]))
      run.config = v as unknown as ConfigLine;
    else if (i > 0 && v["type"] === "step") run.steps.push(v as unknown as StepLine);
    else run.problems.push(`stdout line ${i}: unexpected line type ${show(v["type"])}`);
  });
  if (run.config === undefined && run.problems.length === 0) run.problems.push("no config line on stdout");
  return run;
}

// ---------------------------------------------------------------------------------------------
// Checks. Each returns human-readable mismatches ("field: expected X, got Y"); an empty list passes.

function describeThreshold(t: ThresholdExpectation | OutThreshold): string {
  const derived = t.derivedFrom === undefined ? "" : ` derivedFrom=${t.derivedFrom}`;
  return `${t.signal}<${t.value ?? "?"} grace=${t.gracePeriod ?? "?"} minReclaim=${t.minReclaim ?? "-"} hard=${String(t.hard)}${derived}`;
}

function thresholdMatches(e: ThresholdExpectation, a: OutThreshold): boolean {
  return (
    e.signal === a.signal &&
    e.hard === (a.hard ?? parseGoDuration(a.gracePeriod ?? "") === 0) &&
    sameThresholdValue(e.value, a.value) &&
    sameGoDuration(e.gracePeriod, a.gracePeriod) &&
    sameThresholdValue(e.minReclaim ?? "0", a.minReclaim ?? "0") &&
    (e.derivedFrom === undefined || e.derivedFrom === a.derivedFrom)
  );
}

/** Exact multiset comparison of thresholds (order ignored, as upstream's thresholdsEqual). */
function compareThresholdSets(
  what: string,
  expected: ThresholdExpectation[],
  actual: OutThreshold[],
): string[] {
  const left = [...actual];
  const missing: ThresholdExpectation[] = [];
  for (const e of expected) {
    const i = left.findIndex((a) => thresholdMatches(e, a));
    if (i < 0) missing.push(e);
    else left.splice(i, 1);
  }
  if (missing.length === 0 && left.length === 0) return [];
  return [
    `${what}:` +
      missing.map((t) => `\n      missing    ${describeThreshold(t)}`).join("") +
      left.map((t) => `\n      unexpected ${describeThreshold(t)}`).join(""),
  ];
}

/** Thresholds the engine derives for containerfs from nodefs/imagefs (UpdateContainerFsThresholds). */
const isDerivedContainerFs = (t: OutThreshold): boolean =>
  t.derivedFrom !== undefined && t.signal.startsWith("containerfs.");

function checkConfig(exp: ConfigExpectation, config: ConfigLine): string[] {
  const out: string[] = [];
  if (exp.thresholds !== undefined) {
    out.push(
      ...compareThresholdSets(
        "thresholds",
        exp.thresholds,
        config.thresholds.filter((t) => !isDerivedContainerFs(t)),
      ),
    );
  }
  if (exp.containerfsThresholds !== undefined) {
    out.push(
      ...compareThresholdSets(
        "containerfs thresholds",
        exp.containerfsThresholds,
        config.thresholds.filter((t) => t.signal.startsWith("containerfs.")),
      ),
    );
  }
  if (
    exp.pressureTransitionPeriod !== undefined &&
    !sameGoDuration(exp.pressureTransitionPeriod, config.evictionPressureTransitionPeriod)
  ) {
    out.push(
      `evictionPressureTransitionPeriod: expected ${exp.pressureTransitionPeriod}, got ${show(config.evictionPressureTransitionPeriod)}`,
    );
  }
  if (
    exp.maxPodGracePeriodSeconds !== undefined &&
    exp.maxPodGracePeriodSeconds !== config.evictionMaxPodGracePeriod
  ) {
    out.push(
      `evictionMaxPodGracePeriod: expected ${exp.maxPodGracePeriodSeconds}, got ${show(config.evictionMaxPodGracePeriod)}`,
    );
  }
  return out;
}

const sorted = (xs: readonly string[]): string[] => [...xs].sort();

function checkStep(exp: StepExpectation, step: StepLine): string[] {
  const out: string[] = [];
  const mismatch = (field: string, expected: unknown, actual: unknown): void => {
    out.push(`${field}: expected ${show(expected)}, got ${show(actual)}`);
  };
  const conditions = step.conditions ?? [];
  const evictions = step.evictions ?? [];
  const evicted = evictions.map((e) => e.pod);
  const ranking = step.ranking;
  const ran = step.reclaim?.ran ?? [];

  if (exp.conditions !== undefined && show(exp.conditions) !== show(conditions))
    mismatch("conditions", exp.conditions, conditions);
  for (const c of exp.conditionsInclude ?? [])
    if (!conditions.includes(c)) mismatch(`conditions include ${c}`, true, conditions);
  for (const c of exp.conditionsExclude ?? [])
    if (conditions.includes(c)) mismatch(`conditions exclude ${c}`, true, conditions);

  if (exp.evicted !== undefined && show(exp.evicted) !== show(evicted))
    mismatch("evicted", exp.evicted, evicted);
  if (exp.evictedCount !== undefined && exp.evictedCount !== evicted.length)
    mismatch("number of evictions", exp.evictedCount, evicted);
  for (const p of exp.notEvicted ?? []) if (evicted.includes(p)) mismatch(`${p} not evicted`, true, evicted);

  const perEviction = <K extends keyof OutEviction>(field: K, want: OutEviction[K] | undefined): void => {
    if (want === undefined) return;
    if (evictions.length === 0) mismatch(`${field} (no eviction at this step)`, want, evicted);
    for (const e of evictions)
      if (show(e[field]) !== show(want)) mismatch(`${e.pod} ${field}`, want, e[field]);
  };
  perEviction("gracePeriodSeconds", exp.gracePeriodSeconds);
  perEviction("effectiveGracePeriodSeconds", exp.effectiveGracePeriodSeconds);
  perEviction("killFailed", exp.killFailed);
  perEviction("kind", exp.evictionKind);
  perEviction("message", exp.message);
  for (const sub of exp.messageIncludes ?? []) {
    if (evictions.length === 0)
      mismatch(`message includes ${show(sub)} (no eviction at this step)`, sub, evicted);
    for (const e of evictions)
      if (!(e.message ?? "").includes(sub))
        mismatch(`${e.pod} message includes ${show(sub)}`, true, e.message);
  }
  if (exp.disruptionCondition !== undefined) {
    if (evictions.length === 0)
      mismatch("disruptionCondition (no eviction at this step)", exp.disruptionCondition, evicted);
    for (const e of evictions) {
      const c = e.condition;
      if (exp.disruptionCondition === null) {
        if (c !== undefined && c !== null) mismatch(`${e.pod} condition`, null, c);
      } else {
        const want = exp.disruptionCondition;
        const ok =
          c !== undefined &&
          c !== null &&
          c.type === want.type &&
          c.status === want.status &&
          c.reason === want.reason &&
          (want.message === undefined || c.message === want.message);
        if (!ok) mismatch(`${e.pod} condition`, want, c);
      }
    }
  }

  if (exp.admission !== undefined) {
    const got = (step.admission ?? []).map((a) => a.admit);
    if (show(exp.admission) !== show(got)) mismatch("admission", exp.admission, step.admission ?? []);
  }
  for (const [podKey, message] of Object.entries(exp.admissionMessages ?? {})) {
    const entry = (step.admission ?? []).find((a) => a.pod === podKey);
    if (entry?.message !== message) mismatch(`admission message for ${podKey}`, message, entry);
  }

  if (exp.reclaimRan !== undefined && show(exp.reclaimRan) !== show(ran))
    mismatch("reclaim.ran", exp.reclaimRan, step.reclaim ?? null);
  for (const f of exp.reclaimIncludes ?? [])
    if (!ran.includes(f)) mismatch(`reclaim ran ${f}`, true, step.reclaim ?? null);
  for (const f of exp.reclaimExcludes ?? [])
    if (ran.includes(f)) mismatch(`reclaim did not run ${f}`, true, step.reclaim ?? null);
  if (exp.reclaimSufficient !== undefined && step.reclaim?.sufficient !== exp.reclaimSufficient) {
    mismatch("reclaim.sufficient", exp.reclaimSufficient, step.reclaim ?? null);
  }

  if (exp.ranking !== undefined && show(exp.ranking) !== show(ranking))
    mismatch("ranking", exp.ranking, ranking);
  if (
    exp.rankingPrefix !== undefined &&
    show(exp.rankingPrefix) !== show((ranking ?? []).slice(0, exp.rankingPrefix.length))
  ) {
    mismatch("ranking prefix", exp.rankingPrefix, ranking);
  }
  if (exp.refused !== undefined) {
    const got = (step.refused ?? []).map((r) => r.pod);
    if (show(sorted(exp.refused)) !== show(sorted(got)))
      mismatch("refused (any order)", exp.refused, step.refused ?? []);
  }
  if (exp.refusedReason !== undefined) {
    for (const r of step.refused ?? [])
      if (r.reason !== exp.refusedReason) mismatch(`${r.pod} refusal reason`, exp.refusedReason, r.reason);
  }

  if (exp.actedOn !== undefined) {
    const got = step.actedOn === undefined || step.actedOn === null ? null : step.actedOn.signal;
    if (got !== exp.actedOn) mismatch("actedOn.signal", exp.actedOn, step.actedOn ?? null);
  }
  if (exp.thresholdsMet !== undefined) {
    const got = (step.thresholdsMet ?? []).map((t) => t.signal);
    if (show(sorted(exp.thresholdsMet)) !== show(sorted(got)))
      mismatch("thresholdsMet signals (any order)", exp.thresholdsMet, got);
  }
  for (const [signal, want] of Object.entries(exp.observations ?? {})) {
    const got = step.observations?.[signal];
    if (got === undefined) {
      mismatch(`observation ${signal}`, want, undefined);
      continue;
    }
    if (want.available !== undefined && !sameThresholdValue(want.available, got.available))
      mismatch(`observation ${signal} available`, want.available, got.available);
    if (want.capacity !== undefined && !sameThresholdValue(want.capacity, got.capacity))
      mismatch(`observation ${signal} capacity`, want.capacity, got.capacity);
  }

  if (out.length > 0) {
    // Context for whoever reads the failure: what the engine actually decided at this step.
    out.push(
      `(actual: conditions=${show(conditions)} actedOn=${show(step.actedOn ?? null)} reclaim=${show(step.reclaim ?? null)} ` +
        `evictions=${show(evictions.map((e) => ({ pod: e.pod, kind: e.kind, grace: e.gracePeriodSeconds })))} ranking=${show(ranking ?? null)})`,
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scenario files.

interface ScenarioFile {
  name: string;
  yamlPath: string;
  expectPath: string;
  /** Parsed YAML (the replay input). */
  document: unknown;
}

function scenarioSteps(document: unknown): Record<string, unknown>[] {
  if (!isRecord(document) || !Array.isArray(document["steps"])) return [];
  return document["steps"].filter(isRecord);
}

const scenarioFiles: ScenarioFile[] = readdirSync(SCENARIO_DIR)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => {
    const name = f.slice(0, -".yaml".length);
    const yamlPath = join(SCENARIO_DIR, f);
    const document: unknown = parseYaml(readFileSync(yamlPath, "utf8"));
    return { name, yamlPath, expectPath: join(SCENARIO_DIR, `${name}.expect.json`), document };
  });

function loadExpectation(s: ScenarioFile): ScenarioExpectation {
  const raw: unknown = JSON.parse(readFileSync(s.expectPath, "utf8"));
  return parseExpectation(raw, `${s.name}.expect.json`);
}

describe("upstream scenario files", () => {
  test("every scenario has an expectation file and every expectation file a scenario", () => {
    const yamls = new Set(scenarioFiles.map((s) => s.name));
    const expects = readdirSync(SCENARIO_DIR)
      .filter((f) => f.endsWith(".expect.json"))
      .map((f) => f.slice(0, -".expect.json".length));
    assert.ok(yamls.size > 0, `no scenarios in ${SCENARIO_DIR}`);
    assert.deepEqual(sorted(expects), sorted([...yamls]));
  });

  for (const s of scenarioFiles) {
    test(`${s.name}: scenario and expectations are well-formed`, () => {
      const problems: string[] = [];
      const steps = scenarioSteps(s.document);
      if (!isRecord(s.document)) problems.push("scenario is not a mapping");
      else if (!("config" in s.document)) problems.push("scenario has no config");
      if (steps.length === 0) problems.push("scenario has no steps");
      let previous = -1;
      steps.forEach((step, i) => {
        const at = typeof step["at"] === "string" ? parseGoDuration(step["at"]) : undefined;
        if (at === undefined) problems.push(`steps[${i}].at is not a Go duration: ${show(step["at"])}`);
        else if (at <= previous) problems.push(`steps[${i}].at does not increase`);
        else previous = at;
      });
      // Referenced files (real data) must exist relative to the scenario file.
      const refs: unknown[] = isRecord(s.document)
        ? [
            s.document["pods"],
            s.document["config"],
            ...steps.flatMap((st) => [st["summary"], st["afterReclaim"]]),
          ]
        : [];
      for (const ref of refs) {
        if (typeof ref === "string" && !existsSync(resolve(SCENARIO_DIR, ref)))
          problems.push(`referenced file not found: ${ref}`);
      }
      try {
        const exp = loadExpectation(s);
        const seen = new Set<number>();
        for (const e of exp.steps) {
          if (e.index < 0 || e.index >= steps.length)
            problems.push(`expectation for step ${e.index}, but the scenario has ${steps.length} steps`);
          if (seen.has(e.index)) problems.push(`two expectations for step ${e.index}`);
          seen.add(e.index);
        }
        if (exp.steps.length === 0 && exp.config === undefined)
          problems.push("expectation file asserts nothing");
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
      assertNoProblems(problems, s.name);
    });
  }
});

for (const s of scenarioFiles) {
  describe(`upstream scenario ${s.name}`, { skip: CLI_SKIP }, () => {
    let run: ReplayRun = { status: null, stdout: "", stderr: "", steps: [], problems: ["replay not run"] };
    let expectation: ScenarioExpectation = { description: "", upstream: "", steps: [] };
    const steps = scenarioSteps(s.document);
    before(() => {
      expectation = loadExpectation(s);
      run = runReplay(s.yamlPath);
    });

    test("replay exits 0 with a config line and one line per step", () => {
      const problems = [...run.problems];
      if (run.steps.length !== steps.length)
        problems.push(`expected ${steps.length} step lines, got ${run.steps.length}`);
      run.steps.forEach((line, i) => {
        const want = steps[i]?.["at"];
        if (typeof want === "string" && parseGoDuration(want) !== parseGoDuration(line.at))
          problems.push(`step line ${i}: at ${show(line.at)}, scenario says ${want}`);
      });
      assertNoProblems(problems, `${s.name} (${s.yamlPath})`);
    });

    test("config", () => {
      if (expectation.config === undefined) return;
      assert.ok(run.config !== undefined, `${s.name}: no config line\n  ${run.problems.join("\n  ")}`);
      const problems = checkConfig(expectation.config, run.config);
      assertNoProblems(problems, `${s.name} config line (${expectation.upstream})`);
    });

    const planned = JSON.parse(readFileSync(s.expectPath, "utf8")) as { steps?: { index?: number }[] };
    for (const { index } of planned.steps ?? []) {
      if (typeof index !== "number") continue;
      const at = steps[index]?.["at"];
      test(`step ${index} (at ${typeof at === "string" ? at : "?"})`, () => {
        const exp = expectation.steps.find((e) => e.index === index);
        assert.ok(exp !== undefined, `${s.name}: expectation for step ${index} vanished`);
        const line = run.steps[index];
        assert.ok(
          line !== undefined,
          `${s.name} step ${index}: no output line\n  ${run.problems.join("\n  ")}`,
        );
        const problems = checkStep(exp, line);
        assertNoProblems(problems, `${s.name} step ${index} (at ${show(at)}; ${expectation.upstream})`);
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// TestParseThresholdConfig cases: each through the library (buildEvictionConfig, given the case's
// KubeletConfiguration as the replay gives it), its thresholds written as the replay's config line
// writes them; and one case per exit code (0 and 2) through `evictd replay` too, as a config-only
// scenario with one trivial step.

interface ParseCase {
  name: string;
  source: string;
  config: Record<string, unknown>;
  expectError: boolean;
  errorSubstring?: string;
  thresholds?: ThresholdExpectation[];
}

function loadCases(): ParseCase[] {
  const raw: unknown = JSON.parse(readFileSync(CASES_FILE, "utf8"));
  if (!isRecord(raw) || !Array.isArray(raw["cases"]))
    throw new Error(`${CASES_FILE}: { cases: [...] } expected`);
  const problems: string[] = [];
  const allowed = new Set(["name", "source", "config", "expectError", "errorSubstring", "thresholds"]);
  raw["cases"].forEach((c: unknown, i: number) => {
    const where = `cases[${i}]`;
    if (!isRecord(c)) {
      problems.push(`${where}: not an object`);
      return;
    }
    problems.push(...unknownKeys(c, allowed, where));
    if (typeof c["name"] !== "string") problems.push(`${where}.name: string required`);
    if (typeof c["source"] !== "string") problems.push(`${where}.source: string required`);
    if (!isRecord(c["config"])) problems.push(`${where}.config: object required`);
    if (typeof c["expectError"] !== "boolean") problems.push(`${where}.expectError: boolean required`);
    if (c["expectError"] === true && typeof c["errorSubstring"] !== "string")
      problems.push(`${where}.errorSubstring: required for an error case`);
    if (c["expectError"] === false) {
      if (!Array.isArray(c["thresholds"])) problems.push(`${where}.thresholds: required for a success case`);
      else
        c["thresholds"].forEach((t: unknown, j: number) =>
          problems.push(...thresholdProblems(t, `${where}.thresholds[${j}]`)),
        );
    }
  });
  if (problems.length > 0) throw new Error(`invalid ${CASES_FILE}:\n  ${problems.join("\n  ")}`);
  return raw["cases"] as ParseCase[];
}

const parseCases = loadCases();

/** The case's config as the scenario gives it (an inline config is a KubeletConfiguration). */
const kubeletConfiguration = (c: ParseCase): Record<string, unknown> => ({
  apiVersion: "kubelet.config.k8s.io/v1beta1",
  kind: "KubeletConfiguration",
  ...c.config,
});

/** The thresholds as `evictd replay`'s config line writes them (src/app/replay/records.ts). */
function configLine(config: EvictionConfig): ConfigLine {
  return {
    type: "config",
    thresholds: config.thresholds.map((t) => ({
      signal: t.signal,
      operator: t.operator,
      value: formatThresholdValue(t.value),
      gracePeriod: formatDurationMs(t.gracePeriodMs),
      minReclaim: formatThresholdValue(t.minReclaim),
      hard: t.gracePeriodMs === 0,
      ...(t.derivedFrom !== undefined ? { derivedFrom: t.derivedFrom } : {}),
    })),
  };
}

describe("TestParseThresholdConfig cases", () => {
  for (const c of parseCases) {
    test(c.name, () => {
      // The config as `evictd replay` builds it from a scenario's inline config (scenario-header.ts).
      const built = buildEvictionConfig({ config: kubeletConfiguration(c), configPath: "config", flags: [] });
      const printed = built.ok ? "" : built.issues.map(formatIssue).join("\n");
      const where = `case "${c.name}" (${c.source})`;
      if (c.expectError) {
        const problems: string[] = [];
        if (built.ok)
          problems.push(`expected a configuration error, got ${built.config.thresholds.length} thresholds`);
        else if (!printed.includes(c.errorSubstring ?? ""))
          problems.push(`the problems must contain ${show(c.errorSubstring)}; they were:\n${printed}`);
        assertNoProblems(problems, where);
        return;
      }
      if (!built.ok) assert.fail(`${where}: a configuration error:\n${printed}`);
      assertNoProblems(checkConfig({ thresholds: c.thresholds ?? [] }, configLine(built.config)), where);
    });
  }
});

/** A case of each outcome (the first with thresholds, the first error), replayed by evictd: exit 0 and 2. */
const cliCases = [
  parseCases.find((c) => !c.expectError && (c.thresholds ?? []).length > 0),
  parseCases.find((c) => c.expectError),
].filter((c) => c !== undefined);

describe(
  "TestParseThresholdConfig cases through evictd replay, one per exit code",
  { skip: CLI_SKIP },
  () => {
    let dir = "";
    before(() => {
      dir = mkdtempSync(join(tmpdir(), "evictd-parse-threshold-config-"));
    });
    after(() => {
      if (dir !== "") rmSync(dir, { recursive: true, force: true });
    });

    cliCases.forEach((c, i) => {
      test(`exit ${c.expectError ? 2 : 0}: ${c.name}`, () => {
        const scenario = {
          config: kubeletConfiguration(c),
          filesystems: "single",
          pods: [],
          steps: [
            {
              at: "0s",
              summary: {
                node: { memory: { availableBytes: 8 * 2 ** 30, workingSetBytes: 2 ** 30 } },
                pods: [],
              },
            },
          ],
        };
        const file = join(dir, `case-${i}.json`);
        writeFileSync(file, JSON.stringify(scenario, null, 2));
        const run = runReplay(file);
        const where = `case "${c.name}" (${c.source}); scenario ${file}`;
        if (c.expectError) {
          const problems: string[] = [];
          if (run.status !== 2) problems.push(`exit code: expected 2, got ${String(run.status)}`);
          if (run.stdout.trim() !== "")
            problems.push(`stdout must be empty on a configuration error, got: ${run.stdout.slice(0, 300)}`);
          if (!run.stderr.includes(c.errorSubstring ?? ""))
            problems.push(`stderr must contain ${show(c.errorSubstring)}; stderr was:\n${run.stderr.trim()}`);
          assertNoProblems(problems, where);
          return;
        }
        assertNoProblems(run.problems, where);
        assert.ok(run.config !== undefined, `${where}: no config line`);
        assertNoProblems(checkConfig({ thresholds: c.thresholds ?? [] }, run.config), where);
      });
    });
  },
);
