/**
 * Settings given on a command line over a KubeletConfiguration, one field at a time: `--set
 * evictionHard.memory.available=250Mi` for one change, `--sweep
 * evictionHard.memory.available=100Mi,250Mi,500Mi` for a list of variants (several sweeps: every
 * combination, in order). A map field is named with its key after the first dot (signal names have
 * dots of their own); a scalar field is named alone. Only the fields that decide evictions and the
 * memory the node keeps for itself may be set. Values are checked where the configuration is built
 * (buildEvictionConfig), so a bad value is reported against the setting that gave it.
 */
import { pathKey, type Issue } from "../issues.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import {
  KUBELET_CONFIG_API_VERSION,
  KUBELET_CONFIG_KIND,
  OPENSHIFT_KUBELET_CONFIG_KIND,
} from "./kubelet-config-fields.js";

/** Map fields (keyed by signal, or by resource for the reservations). */
const MAP_FIELDS: ReadonlySet<string> = new Set([
  "evictionHard",
  "evictionSoft",
  "evictionSoftGracePeriod",
  "evictionMinimumReclaim",
  "kubeReserved",
  "systemReserved",
]);
/** Scalar fields and how their value is read. */
const SCALAR_FIELDS: ReadonlyMap<string, "integer" | "string" | "boolean"> = new Map([
  ["evictionMaxPodGracePeriod", "integer"],
  ["evictionPressureTransitionPeriod", "string"],
  ["mergeDefaultEvictionSettings", "boolean"],
]);

/** One field set to one value. */
export interface ConfigSetting {
  readonly field: string;
  /** The map key (a signal, or a resource), for map fields. */
  readonly key?: string;
  readonly value: string | number | boolean;
  /** As given, `evictionHard.memory.available=250Mi`: the setting's name in messages and labels. */
  readonly text: string;
}

/** One field over a list of values. */
export interface ConfigSweep {
  readonly field: string;
  readonly key?: string;
  readonly values: readonly ConfigSetting[];
}

type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: Issue[] };

const fail = (path: string, code: string, message: string): Parsed<never> => ({
  ok: false,
  issues: [{ severity: "error", path, code, message }],
});

/** `FIELD[.KEY]` → field and key, or why not. */
function parseTarget(name: string, path: string): Parsed<{ field: string; key?: string }> {
  const dot = name.indexOf(".");
  const field = dot === -1 ? name : name.slice(0, dot);
  const key = dot === -1 ? undefined : name.slice(dot + 1);
  const known = [...MAP_FIELDS, ...SCALAR_FIELDS.keys()].join(", ");
  if (MAP_FIELDS.has(field)) {
    if (key === undefined || key === "")
      return fail(path, "setting-key", `${field} is a map: name its key, as in ${field}.memory.available=…`);
    return { ok: true, value: { field, key } };
  }
  if (SCALAR_FIELDS.has(field)) {
    if (key !== undefined)
      return fail(
        path,
        "setting-key",
        `${field} is not a map: set it as ${field}=…, not ${JSON.stringify(name)}`,
      );
    return { ok: true, value: { field } };
  }
  return fail(path, "unknown-setting", `unknown field ${JSON.stringify(field)}: one of ${known} may be set`);
}

function valueOf(field: string, text: string, path: string): Parsed<string | number | boolean> {
  const kind = SCALAR_FIELDS.get(field);
  if (kind === "integer") {
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
      return fail(
        path,
        "setting-value",
        `${field} takes a whole number of seconds, got ${JSON.stringify(text)}`,
      );
    return { ok: true, value: Number(text) };
  }
  if (kind === "boolean") {
    if (text !== "true" && text !== "false")
      return fail(path, "setting-value", `${field} takes true or false, got ${JSON.stringify(text)}`);
    return { ok: true, value: text === "true" };
  }
  if (text === "") return fail(path, "setting-value", `no value for ${field}`);
  return { ok: true, value: text };
}

function split(text: string, path: string, form: string): Parsed<{ name: string; value: string }> {
  const eq = text.indexOf("=");
  if (eq <= 0) return fail(path, "setting-syntax", `expected ${form}, got ${JSON.stringify(text)}`);
  return { ok: true, value: { name: text.slice(0, eq), value: text.slice(eq + 1) } };
}

/** `FIELD[.KEY]=VALUE`, as `--set` takes it; `path` names it in issues (`--set[0]`). */
export function parseConfigSetting(text: string, path: string): Parsed<ConfigSetting> {
  const parts = split(text, path, "FIELD[.KEY]=VALUE, as in evictionHard.memory.available=250Mi");
  if (!parts.ok) return parts;
  const target = parseTarget(parts.value.name, path);
  if (!target.ok) return target;
  const value = valueOf(target.value.field, parts.value.value, path);
  if (!value.ok) return value;
  return { ok: true, value: { ...target.value, value: value.value, text } };
}

/** `FIELD[.KEY]=V1,V2,...`, as `--sweep` takes it. */
export function parseConfigSweep(text: string, path: string): Parsed<ConfigSweep> {
  const parts = split(text, path, "FIELD[.KEY]=V1,V2,..., as in evictionHard.memory.available=100Mi,500Mi");
  if (!parts.ok) return parts;
  const target = parseTarget(parts.value.name, path);
  if (!target.ok) return target;
  const issues: Issue[] = [];
  const values: ConfigSetting[] = [];
  const seen = new Set<string>();
  for (const item of parts.value.value.split(",")) {
    const v = valueOf(target.value.field, item.trim(), path);
    if (!v.ok) issues.push(...v.issues);
    else if (seen.has(String(v.value)))
      issues.push({
        severity: "error",
        path,
        code: "setting-duplicate",
        message: `${JSON.stringify(item)} is listed twice`,
      });
    else {
      seen.add(String(v.value));
      values.push({ ...target.value, value: v.value, text: `${parts.value.name}=${item.trim()}` });
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { ...target.value, values } };
}

/** Every combination of the sweeps' values, the first sweep varying slowest; one empty list for none. */
export function sweepCombinations(sweeps: readonly ConfigSweep[]): ConfigSetting[][] {
  let out: ConfigSetting[][] = [[]];
  for (const sweep of sweeps) out = out.flatMap((prefix) => sweep.values.map((v) => [...prefix, v]));
  return out;
}

/**
 * A copy of the KubeletConfiguration `document` (absent: an empty one) with `settings` applied in
 * order, a later one winning; an OpenShift KubeletConfig gets them in `spec.kubeletConfig`.
 */
export function applyConfigSettings(document: unknown, settings: readonly ConfigSetting[]): RawObject {
  type Mutable = Record<string, unknown>;
  const isMutable = (v: unknown): v is Mutable => isRawObject(v);
  const copy: Mutable = isRawObject(document)
    ? structuredClone(document)
    : { apiVersion: KUBELET_CONFIG_API_VERSION, kind: KUBELET_CONFIG_KIND };
  /** `parent[key]` as an object, made one when it is not. */
  const child = (parent: Mutable, key: string): Mutable => {
    const v = parent[key];
    if (isMutable(v)) return v;
    const made: Mutable = {};
    parent[key] = made;
    return made;
  };
  const target =
    copy["kind"] === OPENSHIFT_KUBELET_CONFIG_KIND ? child(child(copy, "spec"), "kubeletConfig") : copy;
  for (const s of settings) {
    if (s.key === undefined) target[s.field] = s.value;
    else child(target, s.field)[s.key] = s.value;
  }
  return copy;
}

/** Where a setting of a map field sits in a configuration, for issues: `config.evictionHard["memory.available"]`. */
export function settingPath(
  configPath: string,
  s: { readonly field: string; readonly key?: string },
): string {
  const field = pathKey(configPath, s.field);
  return s.key === undefined ? field : pathKey(field, s.key);
}
