/**
 * The kubelet's eviction-related command-line flags, parsed as pflag and component-base parse them
 * (`--flag=value` or `--flag value`, `_` accepted for `-`, the first use of a map or list flag
 * replaces its value and repeats accumulate), with every problem collected. Only eviction flags
 * are taken; anything else is reported rather than silently ignored.
 */
import { DurationError, parseGoDuration } from "../time/duration.js";
import { type IssueList, pathIndex, pathKey } from "../issues.js";
import { parseMapFlagValue, parseStringSliceFlagValue } from "./flag-value-syntax.js";
import { goQuote } from "../go-quote.js";
import { parseGoBool, parseGoInt } from "./go-strconv.js";
import type {
  EvictionMapField,
  EvictionSettingField,
  EvictionSettingsLayer,
  Setting,
  SettingEntry,
} from "./setting-types.js";

type FlagSpec =
  | { readonly kind: "langle-map" | "equals-map"; readonly field: EvictionMapField }
  | { readonly kind: "int32"; readonly field: "evictionMaxPodGracePeriod" }
  | { readonly kind: "duration"; readonly field: "evictionPressureTransitionPeriod" }
  | { readonly kind: "bool"; readonly field: "kernelMemcgNotification" | "localStorageCapacityIsolation" }
  | { readonly kind: "string-slice"; readonly field: "enforceNodeAllocatable" };

/** Flag name (without `--`) → how its value is parsed and which setting it writes. */
export const EVICTION_FLAGS: Readonly<Record<string, FlagSpec>> = {
  "eviction-hard": { kind: "langle-map", field: "evictionHard" },
  "eviction-soft": { kind: "langle-map", field: "evictionSoft" },
  "eviction-soft-grace-period": { kind: "equals-map", field: "evictionSoftGracePeriod" },
  "eviction-minimum-reclaim": { kind: "equals-map", field: "evictionMinimumReclaim" },
  "eviction-max-pod-grace-period": { kind: "int32", field: "evictionMaxPodGracePeriod" },
  "eviction-pressure-transition-period": { kind: "duration", field: "evictionPressureTransitionPeriod" },
  "kernel-memcg-notification": { kind: "bool", field: "kernelMemcgNotification" },
  "local-storage-capacity-isolation": { kind: "bool", field: "localStorageCapacityIsolation" },
  "enforce-node-allocatable": { kind: "string-slice", field: "enforceNodeAllocatable" },
};

/** How messages name a setting: `--eviction-hard` when it came from a flag, else the config field. */
export function settingName(field: EvictionSettingField, fromFlag: boolean): string {
  if (!fromFlag) return field;
  const flag = Object.entries(EVICTION_FLAGS).find(([, spec]) => spec.field === field)?.[0];
  return flag === undefined ? field : `--${flag}`;
}

const FLAG_LIST = Object.keys(EVICTION_FLAGS)
  .map((f) => `--${f}`)
  .join(", ");
const ONLY_EVICTION_FLAGS = `evictd reads only the kubelet's eviction flags: ${FLAG_LIST}`;

interface MapState {
  readonly path: string;
  readonly entries: Map<string, SettingEntry>;
}

interface ListState {
  readonly path: string;
  readonly items: Setting<string>[];
}

/** Parses `args` (one array item per shell word); issue paths are `<path>[<index>]`. */
export function parseEvictionFlags(
  args: readonly string[],
  path: string,
  issues: IssueList,
): EvictionSettingsLayer {
  const maps = new Map<EvictionMapField, MapState>();
  let enforce: ListState | undefined;
  const layer: { -readonly [K in keyof EvictionSettingsLayer]: EvictionSettingsLayer[K] } = {
    basePath: path,
  };

  const unexpected = (i: number, arg: string): void =>
    issues.error(
      pathIndex(path, i),
      "unexpected-argument",
      `unexpected argument ${goQuote(arg)}: expected a --flag (${ONLY_EVICTION_FLAGS})`,
    );

  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const argPath = pathIndex(path, i);
    if (arg === "--") {
      // pflag stops at "--": everything after it is a positional argument.
      for (let j = i + 1; j < args.length; j++) unexpected(j, args[j] ?? "");
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      unexpected(i, arg);
      continue;
    }
    if (!arg.startsWith("--")) {
      issues.error(
        argPath,
        "unknown-flag",
        `unknown shorthand flag: ${JSON.stringify(arg.slice(1, 2))} in ${arg} (${ONLY_EVICTION_FLAGS})`,
      );
      continue;
    }
    const body = arg.slice(2);
    const eq = body.indexOf("=");
    const rawName = eq < 0 ? body : body.slice(0, eq);
    if (rawName === "" || rawName.startsWith("-")) {
      issues.error(argPath, "bad-flag-syntax", `bad flag syntax: ${arg}`);
      continue;
    }
    // The kubelet's flag set normalises `_` to `-` (cliflag.WordSepNormalizeFunc).
    const name = rawName.replaceAll("_", "-");
    const spec = Object.hasOwn(EVICTION_FLAGS, name) ? EVICTION_FLAGS[name] : undefined;
    if (spec === undefined) {
      issues.error(argPath, "unknown-flag", `unknown flag: --${rawName} (${ONLY_EVICTION_FLAGS})`);
      // Skip a probable value (`--node-ip 10.0.0.1`) so one unknown flag yields one issue.
      const next = args[i + 1];
      if (eq < 0 && next !== undefined && !next.startsWith("-")) i++;
      continue;
    }

    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (spec.kind === "bool")
      value = "true"; // bool flags never consume the next word
    else if (i + 1 < args.length) value = args[++i] ?? "";
    else {
      issues.error(argPath, "missing-flag-value", `flag needs an argument: --${name}`);
      continue;
    }
    const invalid = (message: string): void =>
      issues.error(
        argPath,
        "invalid-flag-value",
        `invalid argument ${goQuote(value)} for "--${name}" flag: ${message}`,
      );

    switch (spec.kind) {
      case "langle-map":
      case "equals-map": {
        const parsed = parseMapFlagValue(value, spec.kind === "langle-map" ? "<" : "=");
        if (parsed.malformed !== undefined) invalid(parsed.malformed);
        let state = maps.get(spec.field);
        if (state === undefined) {
          // First use replaces the whole map (and the config file's map, in resolution).
          state = { path: argPath, entries: new Map() };
          maps.set(spec.field, state);
        }
        for (const pair of parsed.pairs) {
          state.entries.set(pair.key, { key: pair.key, value: pair.value, path: pathKey(argPath, pair.key) });
        }
        break;
      }
      case "int32": {
        const n = parseGoInt(value, 32);
        if (n.ok) layer.evictionMaxPodGracePeriod = { value: Number(n.value), path: argPath };
        else invalid(n.message);
        break;
      }
      case "duration": {
        try {
          layer.evictionPressureTransitionPeriod = { value: parseGoDuration(value), path: argPath };
        } catch (e) {
          if (!(e instanceof DurationError)) throw e;
          invalid(e.message);
        }
        break;
      }
      case "bool": {
        const b = parseGoBool(value);
        if (b.ok) layer[spec.field] = { value: b.value, path: argPath };
        else invalid(b.message);
        break;
      }
      case "string-slice": {
        const parsed = parseStringSliceFlagValue(value);
        if (!parsed.ok) {
          invalid(parsed.message);
          break;
        }
        enforce ??= { path: argPath, items: [] };
        for (const item of parsed.items) enforce.items.push({ value: item, path: argPath });
        break;
      }
    }
  }

  for (const [field, state] of maps)
    layer[field] = { path: state.path, entries: [...state.entries.values()] };
  if (enforce !== undefined) layer.enforceNodeAllocatable = enforce;
  return layer;
}
