/**
 * The eviction settings as raw text, each value tagged with the issue path it was written at, so
 * that every later problem can name the exact field and key (`config.evictionHard["memory.available"]`,
 * `flags[2]["memory.available"]`).
 */

/** A single value and where it came from. */
export interface Setting<T> {
  readonly value: T;
  readonly path: string;
}

/** One entry of a signal map (`evictionHard`, `evictionSoft`, ...). */
export interface SettingEntry {
  readonly key: string;
  readonly value: string;
  readonly path: string;
}

/** A signal map in key order (config key order, or flag order), with the path of the map itself. */
export interface SettingMap {
  readonly path: string;
  readonly entries: readonly SettingEntry[];
}

/** A list setting (`enforceNodeAllocatable`), each item with its own path. */
export interface SettingList {
  readonly path: string;
  readonly items: readonly Setting<string>[];
}

export type EvictionMapField =
  "evictionHard" | "evictionSoft" | "evictionSoftGracePeriod" | "evictionMinimumReclaim";

/** The four signal maps, in the order ParseThresholdConfig reads them. */
export const EVICTION_MAP_FIELDS: readonly EvictionMapField[] = [
  "evictionHard",
  "evictionSoft",
  "evictionSoftGracePeriod",
  "evictionMinimumReclaim",
];

/** What one source (the config file, or the command line) says; absent = not set there. */
export interface EvictionSettingsLayer {
  /** The path the source's fields live under (`config`, `config.spec.kubeletConfig`, `flags`). */
  readonly basePath: string;
  readonly evictionHard?: SettingMap;
  readonly evictionSoft?: SettingMap;
  readonly evictionSoftGracePeriod?: SettingMap;
  readonly evictionMinimumReclaim?: SettingMap;
  /** Seconds (int32). */
  readonly evictionMaxPodGracePeriod?: Setting<number>;
  /** Nanoseconds, as written (the config file's 0 → 5m defaulting happens in resolution). */
  readonly evictionPressureTransitionPeriod?: Setting<bigint>;
  readonly mergeDefaultEvictionSettings?: Setting<boolean>;
  readonly kernelMemcgNotification?: Setting<boolean>;
  readonly localStorageCapacityIsolation?: Setting<boolean>;
  readonly enforceNodeAllocatable?: SettingList;
}

/** The settings a layer can carry. */
export type EvictionSettingField = Exclude<keyof EvictionSettingsLayer, "basePath">;

/** Where the effective `evictionHard` map came from; warnings depend on it. */
export type EvictionHardOrigin = "default" | "config" | "merged" | "flag";

/** The effective settings after defaults and flag precedence, ready for ParseThresholdConfig. */
export interface EvictionSettings {
  readonly evictionHard: SettingMap;
  readonly evictionHardOrigin: EvictionHardOrigin;
  readonly evictionSoft: SettingMap;
  readonly evictionSoftGracePeriod: SettingMap;
  readonly evictionMinimumReclaim: SettingMap;
  readonly evictionMaxPodGracePeriod: Setting<number>;
  readonly evictionPressureTransitionPeriod: Setting<bigint>;
  /** The fields whose value came from a command-line flag (so messages can name the flag). */
  readonly fromFlags: ReadonlySet<EvictionSettingField>;
  readonly kernelMemcgNotification: Setting<boolean>;
  readonly localStorageCapacityIsolation: Setting<boolean>;
  readonly enforceNodeAllocatable: SettingList;
}
