/**
 * The pure entry point from a decoded kubelet config object and command-line flags to the
 * engine's {@link EvictionConfig}: read both, resolve defaults and precedence, validate, parse the
 * thresholds, and warn about risky settings. Never throws on bad input; every problem is returned.
 */
import { durationToMs } from "../time/duration.js";
import { type Issue, IssueList } from "../issues.js";
import type { EvictionConfig } from "../model.js";
import { warnRiskySettings } from "./config-warnings.js";
import { validateEnforceNodeAllocatable } from "./enforce-node-allocatable.js";
import { parseEvictionFlags } from "./eviction-flags.js";
import { parseThresholdConfig } from "./parse-threshold-config.js";
import { readKubeletConfig } from "./read-kubelet-config.js";
import { resolveEvictionSettings } from "./resolve-eviction-settings.js";

export interface EvictionConfigInput {
  /** A decoded KubeletConfiguration (or OpenShift KubeletConfig); absent = all defaults. */
  readonly config?: unknown;
  /** Issue path prefix for config problems; default `config`. */
  readonly configPath?: string;
  /** Kubelet command-line words (`--eviction-hard=memory.available<1Gi`, or flag and value apart). */
  readonly flags?: readonly string[];
  /** Issue path prefix for flag problems; default `flags`. */
  readonly flagsPath?: string;
}

export type EvictionConfigResult =
  | { readonly ok: true; readonly config: EvictionConfig; readonly warnings: Issue[] }
  | { readonly ok: false; readonly issues: Issue[] /* errors and warnings */ };

/** Builds the eviction configuration the kubelet would run with, or every reason it would not start. */
export function buildEvictionConfig(input: EvictionConfigInput): EvictionConfigResult {
  const configPath = input.configPath ?? "config";
  const flagsPath = input.flagsPath ?? "flags";
  const issues = new IssueList();

  const file = input.config === undefined ? undefined : readKubeletConfig(input.config, configPath, issues);
  const flags = parseEvictionFlags(input.flags ?? [], flagsPath, issues);
  const settings = resolveEvictionSettings(file, flags, configPath);
  validateEnforceNodeAllocatable(settings.enforceNodeAllocatable, issues);

  const enforceNodeAllocatable = settings.enforceNodeAllocatable.items.map((i) => i.value);
  const thresholds = parseThresholdConfig(
    {
      enforceNodeAllocatable,
      evictionHard: settings.evictionHard,
      evictionSoft: settings.evictionSoft,
      evictionSoftGracePeriod: settings.evictionSoftGracePeriod,
      evictionMinimumReclaim: settings.evictionMinimumReclaim,
    },
    issues,
  );
  warnRiskySettings(settings, thresholds, issues);

  if (issues.hasErrors) return { ok: false, issues: issues.items };
  return {
    ok: true,
    config: {
      thresholds,
      maxPodGracePeriodSeconds: settings.evictionMaxPodGracePeriod.value,
      pressureTransitionPeriodMs: durationToMs(settings.evictionPressureTransitionPeriod.value),
      localStorageCapacityIsolation: settings.localStorageCapacityIsolation.value,
      kernelMemcgNotification: settings.kernelMemcgNotification.value,
      enforceNodeAllocatable,
    },
    warnings: issues.warnings,
  };
}
