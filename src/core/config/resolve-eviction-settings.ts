/**
 * Combines the config-file layer and the command-line layer into the effective eviction settings,
 * in the kubelet's order (`cmd/kubelet/app/server.go`): decode the file and apply v1beta1 defaults,
 * fill `evictionHard` (OS defaults when nil, merged defaults when `mergeDefaultEvictionSettings`),
 * then re-apply the flags, which replace whole values (a flag map replaces the file's whole map).
 */
import { pathKey } from "../issues.js";
import {
  DEFAULT_ENFORCE_NODE_ALLOCATABLE,
  DEFAULT_EVICTION_HARD,
  DEFAULT_PRESSURE_TRANSITION_PERIOD_NS,
} from "./eviction-defaults.js";
import type {
  EvictionHardOrigin,
  EvictionSettingField,
  EvictionSettings,
  EvictionSettingsLayer,
  SettingEntry,
  SettingMap,
} from "./setting-types.js";

function defaultEntries(mapPath: string, except: ReadonlySet<string>): SettingEntry[] {
  return Object.entries(DEFAULT_EVICTION_HARD)
    .filter(([key]) => !except.has(key))
    .map(([key, value]) => ({ key, value, path: pathKey(mapPath, key) }));
}

function resolveEvictionHard(
  file: EvictionSettingsLayer,
  flags: EvictionSettingsLayer,
): { map: SettingMap; origin: EvictionHardOrigin } {
  if (flags.evictionHard !== undefined) return { map: flags.evictionHard, origin: "flag" };
  const own = file.evictionHard;
  if (own === undefined) {
    // nil evictionHard → the OS defaults. Upstream applies them only on the config-file path, so a
    // kubelet with neither --config nor --eviction-hard may run without hard thresholds; evictd
    // treats "no evictionHard anywhere" as the defaults too (upstream applies them only on the config-file path, in loadConfigFile).
    const mapPath = pathKey(file.basePath, "evictionHard");
    return { map: { path: mapPath, entries: defaultEntries(mapPath, new Set()) }, origin: "default" };
  }
  if (file.mergeDefaultEvictionSettings?.value === true) {
    // User keys win; every default key the user did not list is added (an explicit {} included).
    const listed = new Set(own.entries.map((e) => e.key));
    return {
      map: { path: own.path, entries: [...own.entries, ...defaultEntries(own.path, listed)] },
      origin: "merged",
    };
  }
  // Used as written: unlisted default signals have no hard threshold, and {} disables them all.
  return { map: own, origin: "config" };
}

function emptyMap(base: string, field: string): SettingMap {
  return { path: pathKey(base, field), entries: [] };
}

/** Effective settings; `file` is undefined when no config was given (all v1beta1 defaults). */
export function resolveEvictionSettings(
  file: EvictionSettingsLayer | undefined,
  flags: EvictionSettingsLayer,
  configPath: string,
): EvictionSettings {
  const f: EvictionSettingsLayer = file ?? { basePath: configPath };
  const base = f.basePath;
  const hard = resolveEvictionHard(f, flags);

  // A 0 transition period in the file is defaulted to 5m by v1beta1 defaulting; the flag is parsed
  // after defaulting, so --eviction-pressure-transition-period=0 really is 0.
  const flagTransition = flags.evictionPressureTransitionPeriod;
  const fileTransition = f.evictionPressureTransitionPeriod;
  const transitionPath = fileTransition?.path ?? pathKey(base, "evictionPressureTransitionPeriod");
  const evictionPressureTransitionPeriod =
    flagTransition ??
    (fileTransition !== undefined && fileTransition.value !== 0n
      ? fileTransition
      : { value: DEFAULT_PRESSURE_TRANSITION_PERIOD_NS, path: transitionPath });

  const enforcePath = pathKey(base, "enforceNodeAllocatable");
  return {
    evictionHard: hard.map,
    evictionHardOrigin: hard.origin,
    evictionSoft: flags.evictionSoft ?? f.evictionSoft ?? emptyMap(base, "evictionSoft"),
    evictionSoftGracePeriod:
      flags.evictionSoftGracePeriod ?? f.evictionSoftGracePeriod ?? emptyMap(base, "evictionSoftGracePeriod"),
    evictionMinimumReclaim:
      flags.evictionMinimumReclaim ?? f.evictionMinimumReclaim ?? emptyMap(base, "evictionMinimumReclaim"),
    evictionMaxPodGracePeriod: flags.evictionMaxPodGracePeriod ??
      f.evictionMaxPodGracePeriod ?? { value: 0, path: pathKey(base, "evictionMaxPodGracePeriod") },
    evictionPressureTransitionPeriod,
    fromFlags: new Set(
      (Object.keys(flags) as (keyof EvictionSettingsLayer)[]).filter(
        (k): k is EvictionSettingField => k !== "basePath" && flags[k] !== undefined,
      ),
    ),
    kernelMemcgNotification: flags.kernelMemcgNotification ??
      f.kernelMemcgNotification ?? { value: false, path: pathKey(base, "kernelMemcgNotification") },
    localStorageCapacityIsolation: flags.localStorageCapacityIsolation ??
      f.localStorageCapacityIsolation ?? {
        value: true,
        path: pathKey(base, "localStorageCapacityIsolation"),
      },
    enforceNodeAllocatable: flags.enforceNodeAllocatable ??
      f.enforceNodeAllocatable ?? {
        path: enforcePath,
        items: DEFAULT_ENFORCE_NODE_ALLOCATABLE.map((value) => ({ value, path: enforcePath })),
      },
  };
}
