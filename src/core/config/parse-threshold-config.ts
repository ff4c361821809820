/**
 * Upstream `ParseThresholdConfig` (`pkg/kubelet/eviction/helpers.go`): the four signal maps and
 * `enforceNodeAllocatable` become the threshold list. Same results and error texts, but every
 * problem is collected instead of stopping at the first, and the order is deterministic: hard
 * thresholds in key order, then soft ones, then the `allocatableMemory.available` copies.
 */
import { durationToMs } from "../time/duration.js";
import type { IssueList } from "../issues.js";
import type { Signal, Threshold, ThresholdValue } from "../model.js";
import { NODE_ALLOCATABLE_PODS } from "./enforce-node-allocatable.js";
import type { SettingMap } from "./setting-types.js";
import {
  checkSignal,
  parseGracePeriodValue,
  parseMinimumReclaimValue,
  parseThresholdValue,
} from "./threshold-statement.js";

export interface ThresholdConfigInput {
  readonly enforceNodeAllocatable: readonly string[];
  readonly evictionHard: SettingMap;
  readonly evictionSoft: SettingMap;
  readonly evictionSoftGracePeriod: SettingMap;
  readonly evictionMinimumReclaim: SettingMap;
}

interface ParsedStatement {
  readonly signal: Signal;
  readonly value: ThresholdValue;
  readonly path: string;
}

function parseStatements(map: SettingMap, issues: IssueList): ParsedStatement[] {
  const out: ParsedStatement[] = [];
  for (const entry of map.entries) {
    const signal = checkSignal(entry.key);
    if (!signal.ok) {
      issues.error(entry.path, signal.code, signal.message);
      continue;
    }
    const value = parseThresholdValue(signal.value, entry.value);
    if (!value.ok) issues.error(entry.path, value.code, value.message);
    else if (value.value !== null) out.push({ signal: signal.value, value: value.value, path: entry.path });
  }
  return out;
}

/** Grace periods by signal; `failed` holds signals whose entry was present but invalid. */
function parseGracePeriods(
  map: SettingMap,
  issues: IssueList,
): { periods: Map<Signal, bigint>; failed: Set<string> } {
  const periods = new Map<Signal, bigint>();
  const failed = new Set<string>();
  for (const entry of map.entries) {
    const signal = checkSignal(entry.key);
    if (!signal.ok) {
      issues.error(entry.path, signal.code, signal.message);
      continue;
    }
    const ns = parseGracePeriodValue(entry.value);
    if (ns.ok) periods.set(signal.value, ns.value);
    else {
      issues.error(entry.path, ns.code, ns.message);
      failed.add(entry.key);
    }
  }
  return { periods, failed };
}

function parseMinimumReclaims(map: SettingMap, issues: IssueList): Map<Signal, ThresholdValue> {
  const reclaims = new Map<Signal, ThresholdValue>();
  for (const entry of map.entries) {
    const signal = checkSignal(entry.key);
    if (!signal.ok) {
      issues.error(entry.path, signal.code, signal.message);
      continue;
    }
    const value = parseMinimumReclaimValue(signal.value, entry.value);
    if (value.ok) reclaims.set(signal.value, value.value);
    else issues.error(entry.path, value.code, value.message);
  }
  return reclaims;
}

/**
 * Builds the thresholds, pushing every error into `issues`. The list is only meaningful when no
 * error was pushed. Ids: `hard/<signal>`, `soft/<signal>`, `allocatable/<source id>`.
 */
export function parseThresholdConfig(input: ThresholdConfigInput, issues: IssueList): Threshold[] {
  const hard = parseStatements(input.evictionHard, issues);
  const soft = parseStatements(input.evictionSoft, issues);
  const grace = parseGracePeriods(input.evictionSoftGracePeriod, issues);
  const reclaims = parseMinimumReclaims(input.evictionMinimumReclaim, issues);

  const built: { threshold: Threshold; graceNs: bigint }[] = [];
  const withReclaim = (t: Omit<Threshold, "minReclaim">): Threshold => {
    // Every threshold of the signal shares the one min-reclaim value (hard and soft alike).
    const minReclaim = reclaims.get(t.signal);
    return minReclaim === undefined ? t : { ...t, minReclaim };
  };
  for (const s of hard) {
    built.push({
      threshold: withReclaim({
        id: `hard/${s.signal}`,
        signal: s.signal,
        operator: "LessThan",
        value: s.value,
        gracePeriodMs: 0,
        origin: "hard",
      }),
      graceNs: 0n,
    });
  }
  for (const s of soft) {
    const ns = grace.periods.get(s.signal);
    if (ns === undefined) {
      // Not repeated when the grace period was given but is itself invalid (already reported).
      if (!grace.failed.has(s.signal)) {
        issues.error(
          s.path,
          "missing-grace-period",
          `grace period must be specified for the soft eviction threshold ${s.signal}`,
        );
      }
      continue;
    }
    built.push({
      threshold: withReclaim({
        id: `soft/${s.signal}`,
        signal: s.signal,
        operator: "LessThan",
        value: s.value,
        gracePeriodMs: durationToMs(ns),
        origin: "soft",
      }),
      graceNs: ns,
    });
  }

  const thresholds = built.map((b) => b.threshold);
  if (input.enforceNodeAllocatable.includes(NODE_ALLOCATABLE_PODS)) {
    // "Hard" means grace exactly 0, so a soft memory threshold with 0s grace is copied too.
    for (const { threshold: src, graceNs } of built) {
      if (src.signal !== "memory.available" || graceNs !== 0n || src.value === undefined) continue;
      const copy: Threshold = {
        id: `allocatable/${src.id}`,
        signal: "allocatableMemory.available",
        operator: src.operator,
        value: src.value,
        gracePeriodMs: 0,
        origin: "allocatable",
        derivedFrom: "memory.available",
      };
      thresholds.push(src.minReclaim === undefined ? copy : { ...copy, minReclaim: src.minReclaim });
    }
  }
  return thresholds;
}
