/**
 * Risky-but-valid eviction settings: the kubelet accepts them silently, but they rarely do what
 * their author meant. Each rule pushes a warning that says why, citing upstream behaviour.
 */
import type { IssueList } from "../issues.js";
import type { Signal, Threshold, ThresholdValue } from "../model.js";
import { cmpQuantity, formatQuantity } from "../quantity.js";
import { isSignal } from "../signals.js";
import { NODE_ALLOCATABLE_PODS } from "./enforce-node-allocatable.js";
import { DEFAULT_EVICTION_HARD } from "./eviction-defaults.js";
import { settingName } from "./eviction-flags.js";
import type { EvictionSettingField, EvictionSettings, SettingEntry, SettingMap } from "./setting-types.js";

type Rule = (settings: EvictionSettings, thresholds: readonly Threshold[], issues: IssueList) => void;

function show(v: ThresholdValue): string {
  return v.kind === "quantity" ? formatQuantity(v.quantity) : v.text;
}

function nameOf(s: EvictionSettings, field: EvictionSettingField): string {
  return settingName(field, s.fromFlags.has(field));
}

function entryFor(map: SettingMap, signal: string): SettingEntry | undefined {
  return map.entries.find((e) => e.key === signal);
}

/** A partial (or empty) evictionHard silently drops the default hard thresholds it does not list. */
const droppedDefaults: Rule = (s, _t, issues) => {
  if (s.evictionHardOrigin !== "config" && s.evictionHardOrigin !== "flag") return;
  const fromFlag = s.evictionHardOrigin === "flag";
  const listed = new Set(s.evictionHard.entries.map((e) => e.key));
  const dropped = Object.entries(DEFAULT_EVICTION_HARD).filter(([k]) => !listed.has(k));
  if (dropped.length === 0) return;
  const names = dropped.map(([k, v]) => `${k}<${v}`).join(", ");
  const keep = fromFlag
    ? "list them in the flag too (mergeDefaultEvictionSettings does not apply to a flag, which replaces the whole map)"
    : "list them, or set mergeDefaultEvictionSettings: true to keep the defaults";
  if (s.evictionHard.entries.length === 0) {
    const tail = fromFlag ? "" : "; tools that drop empty maps when re-serialising turn the defaults back on";
    issues.warning(
      s.evictionHard.path,
      "empty-eviction-hard",
      `${nameOf(s, "evictionHard")} is empty, which disables every hard eviction threshold including the defaults (${names})${tail}`,
    );
    return;
  }
  issues.warning(
    s.evictionHard.path,
    "dropped-default-thresholds",
    `${nameOf(s, "evictionHard")} does not list ${dropped.map(([k]) => k).join(", ")}, so these default hard thresholds no longer apply: ${names}; ${keep}`,
  );
};

/** A negative evictionMaxPodGracePeriod is clamped to about 1 s, not "defer to the pod". */
const negativeMaxPodGrace: Rule = (s, _t, issues) => {
  const v = s.evictionMaxPodGracePeriod;
  if (v.value >= 0) return;
  issues.warning(
    v.path,
    "negative-max-pod-grace-period",
    `${nameOf(s, "evictionMaxPodGracePeriod")} ${v.value} is negative: the kubelet does not defer to the pod's terminationGracePeriodSeconds (as the flag help says) but clamps the override to its 1 s minimum, so soft evictions kill pods almost at once; use 0 to give pods their own grace period`,
  );
};

function atOrBelow(soft: ThresholdValue, hard: ThresholdValue): boolean | undefined {
  if (soft.kind === "quantity" && hard.kind === "quantity")
    return cmpQuantity(soft.quantity, hard.quantity) <= 0;
  if (soft.kind === "percentage" && hard.kind === "percentage") return soft.percentage <= hard.percentage;
  return undefined; // a quantity and a percentage are not comparable without the capacity
}

/** A soft threshold at or below the hard one on its signal is always met later, so never acts first. */
const softNotAboveHard: Rule = (s, thresholds, issues) => {
  for (const soft of thresholds) {
    if (soft.origin !== "soft" || soft.value === undefined) continue;
    const hard = thresholds.find((t) => t.origin === "hard" && t.signal === soft.signal);
    if (hard?.value === undefined || atOrBelow(soft.value, hard.value) !== true) continue;
    const at = entryFor(s.evictionSoft, soft.signal)?.path ?? s.evictionSoft.path;
    issues.warning(
      at,
      "soft-not-above-hard",
      `soft threshold ${soft.signal}<${show(soft.value)} is at or below the hard threshold ${soft.signal}<${show(hard.value)}: available drops below the hard value first, so this soft threshold can never act before the hard one (a soft threshold should be higher)`,
    );
  }
};

/** A soft threshold with a 0 grace period is a hard threshold in every respect. */
const softGraceZero: Rule = (s, thresholds, issues) => {
  const copies = s.enforceNodeAllocatable.items.some((i) => i.value === NODE_ALLOCATABLE_PODS);
  for (const t of thresholds) {
    if (t.origin !== "soft" || t.gracePeriodMs !== 0) continue;
    const entry = entryFor(s.evictionSoftGracePeriod, t.signal);
    const at = entry?.path ?? s.evictionSoftGracePeriod.path;
    const copied =
      t.signal === "memory.available" && copies ? ", and it is copied to allocatableMemory.available" : "";
    issues.warning(
      at,
      "soft-grace-zero",
      `grace period ${entry?.value ?? "0s"} makes the soft threshold ${t.signal} behave as a hard one: the kubelet treats any threshold with a zero grace period as hard, so pods are evicted at once with a 1 s grace period instead of evictionMaxPodGracePeriod${copied}`,
    );
  }
};

/** Grace periods for signals with no soft threshold are ignored upstream without a word. */
const unusedGracePeriods: Rule = (s, _t, issues) => {
  const soft = new Set(s.evictionSoft.entries.map((e) => e.key));
  for (const e of s.evictionSoftGracePeriod.entries) {
    if (!isSignal(e.key) || soft.has(e.key)) continue;
    issues.warning(
      e.path,
      "unused-grace-period",
      `grace period ${e.value} for ${e.key} is ignored: there is no soft threshold for ${e.key} (grace periods only apply to ${nameOf(s, "evictionSoft")} entries)`,
    );
  }
};

/** Minimum reclaims attach to thresholds of their signal; without one they do nothing. */
const unusedMinimumReclaims: Rule = (s, thresholds, issues) => {
  const configured = new Set<string>(
    [...s.evictionHard.entries, ...s.evictionSoft.entries].map((e) => e.key),
  );
  for (const t of thresholds) configured.add(t.signal);
  for (const e of s.evictionMinimumReclaim.entries) {
    if (!isSignal(e.key) || configured.has(e.key)) continue;
    issues.warning(
      e.path,
      "unused-min-reclaim",
      `minimum reclaim ${e.value} for ${e.key} is ignored: there is no hard or soft threshold for ${e.key}`,
    );
  }
};

/** With a transition period <= 0 no pressure condition survives the run that observed it. */
const noPressureTransition: Rule = (s, _t, issues) => {
  const p = s.evictionPressureTransitionPeriod;
  if (p.value > 0n) return;
  const fromFlag = s.fromFlags.has("evictionPressureTransitionPeriod");
  const why =
    fromFlag && p.value === 0n ? " (a flag value is not defaulted to 5m like a 0 in the config file)" : "";
  issues.warning(
    p.path,
    "no-pressure-transition",
    `${nameOf(s, "evictionPressureTransitionPeriod")} is ${p.value === 0n ? "0" : "negative"}${why}: a condition is reported only while less than this period has passed since it was last observed, so no MemoryPressure, DiskPressure or PIDPressure condition is ever reported (evictions still happen, but admission and the node taints never see pressure)`,
  );
};

const CONTAINERFS: ReadonlySet<Signal> = new Set(["containerfs.available", "containerfs.inodesFree"]);

/** User containerfs thresholds are overwritten by nodefs/imagefs copies at the first synchronize. */
const containerfsOverridden: Rule = (s, _t, issues) => {
  for (const e of [...s.evictionHard.entries, ...s.evictionSoft.entries]) {
    if (!CONTAINERFS.has(e.key as Signal)) continue;
    issues.warning(
      e.path,
      "containerfs-overridden",
      `${e.key}<${e.value} is not used: the kubelet replaces containerfs thresholds with copies of the nodefs or imagefs ones once it knows the filesystem layout (it logs "eviction manager: found conflicting containerfs eviction. Ignoring.")`,
    );
  }
};

/** Percentages that pass validation but are 0, 100% of capacity, or NaN. */
const degeneratePercentages: Rule = (s, thresholds, issues) => {
  for (const t of thresholds) {
    if ((t.origin !== "hard" && t.origin !== "soft") || t.value?.kind !== "percentage") continue;
    const map = t.origin === "hard" ? s.evictionHard : s.evictionSoft;
    const at = entryFor(map, t.signal)?.path ?? map.path;
    const { percentage, text } = t.value;
    if (Number.isNaN(percentage)) {
      issues.warning(
        at,
        "nan-threshold",
        `${t.signal}<${text} is NaN: it passes the kubelet's range checks but can never be met`,
      );
    } else if (percentage === 1) {
      issues.warning(
        at,
        "full-capacity-threshold",
        `${t.signal}<${text} is the whole capacity: the threshold is met as soon as anything is used, so the kubelet keeps evicting (only the exact text "100%" disables a threshold)`,
      );
    } else if (percentage === 0) {
      issues.warning(
        at,
        "zero-threshold",
        `${t.signal}<${text} is zero and can never be met (only the exact text "0%" disables a threshold; use it to say so)`,
      );
    }
  }
};

const RULES: readonly Rule[] = [
  droppedDefaults,
  containerfsOverridden,
  degeneratePercentages,
  softNotAboveHard,
  softGraceZero,
  unusedGracePeriods,
  unusedMinimumReclaims,
  negativeMaxPodGrace,
  noPressureTransition,
];

/** Pushes every risky-but-valid warning for the effective settings and their thresholds. */
export function warnRiskySettings(
  settings: EvictionSettings,
  thresholds: readonly Threshold[],
  issues: IssueList,
): void {
  for (const rule of RULES) rule(settings, thresholds, issues);
}
