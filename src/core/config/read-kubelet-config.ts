/**
 * Reads the eviction fields of an already-decoded KubeletConfiguration object (or the OpenShift
 * `KubeletConfig` wrapper around one) into an {@link EvictionSettingsLayer}, type-checking each
 * field the way the kubelet's JSON decoding would and collecting every problem.
 */
import { DurationError, parseGoDuration } from "../time/duration.js";
import { type IssueList, pathIndex, pathKey } from "../issues.js";
import {
  KUBELET_CONFIG_API_VERSION,
  KUBELET_CONFIG_KIND,
  KUBELET_CONFIGURATION_FIELDS,
  OPENSHIFT_KUBELET_CONFIG_API_VERSION,
  OPENSHIFT_KUBELET_CONFIG_KIND,
} from "./kubelet-config-fields.js";
import type {
  EvictionMapField,
  EvictionSettingsLayer,
  Setting,
  SettingEntry,
  SettingList,
  SettingMap,
} from "./setting-types.js";
import { EVICTION_MAP_FIELDS } from "./setting-types.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";

const LOWERCASE_FIELDS = new Map([...KUBELET_CONFIGURATION_FIELDS].map((f) => [f.toLowerCase(), f]));

function checkUnknownFields(obj: RawObject, path: string, issues: IssueList): void {
  for (const key of Object.keys(obj)) {
    if (KUBELET_CONFIGURATION_FIELDS.has(key)) continue;
    // The kubelet decodes field names case-sensitively, so `EvictionHard` is silently ignored.
    const near = LOWERCASE_FIELDS.get(key.toLowerCase());
    const hint =
      near !== undefined ? ` (did you mean ${JSON.stringify(near)}? field names are case-sensitive)` : "";
    issues.warning(
      pathKey(path, key),
      "unknown-field",
      `unknown field ${JSON.stringify(key)}: not a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) field, ignored${hint}`,
    );
  }
}

function readSignalMap(
  obj: RawObject,
  field: EvictionMapField,
  path: string,
  issues: IssueList,
): SettingMap | undefined {
  const raw = obj[field];
  const mapPath = pathKey(path, field);
  // Absent and null both decode to a nil map (for evictionHard that means "use the defaults").
  if (raw === undefined || raw === null) return undefined;
  if (!isRawObject(raw)) {
    issues.error(
      mapPath,
      "wrong-type",
      `expected a map of signal names to strings, got ${describeValue(raw)}`,
    );
    return undefined;
  }
  const entries: SettingEntry[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const entryPath = pathKey(mapPath, key);
    // Keys are used exactly as written: the kubelet does not trim config-file keys.
    if (typeof value === "string") entries.push({ key, value, path: entryPath });
    // JSON null decodes to "" inside a map[string]string (then fails to parse as a value).
    else if (value === null) entries.push({ key, value: "", path: entryPath });
    else {
      const quoteHint = typeof value === "number" ? ` (quote it: "${String(value)}")` : "";
      issues.error(entryPath, "wrong-type", `expected a string, got ${describeValue(value)}${quoteHint}`);
    }
  }
  return { path: mapPath, entries };
}

function readBool(
  obj: RawObject,
  field: string,
  path: string,
  issues: IssueList,
): Setting<boolean> | undefined {
  const raw = obj[field];
  if (raw === undefined || raw === null) return undefined;
  const p = pathKey(path, field);
  if (typeof raw === "boolean") return { value: raw, path: p };
  issues.error(p, "wrong-type", `expected true or false, got ${describeValue(raw)}`);
  return undefined;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function readInt32(
  obj: RawObject,
  field: string,
  path: string,
  issues: IssueList,
): Setting<number> | undefined {
  const raw = obj[field];
  if (raw === undefined || raw === null) return undefined;
  const p = pathKey(path, field);
  const n = typeof raw === "bigint" ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isInteger(n)) {
    issues.error(p, "wrong-type", `expected an integer number of seconds, got ${describeValue(raw)}`);
    return undefined;
  }
  if (n < INT32_MIN || n > INT32_MAX) {
    issues.error(p, "out-of-range", `${n} does not fit in an int32 (${INT32_MIN} to ${INT32_MAX})`);
    return undefined;
  }
  return { value: n, path: p };
}

function readDuration(
  obj: RawObject,
  field: string,
  path: string,
  issues: IssueList,
): Setting<bigint> | undefined {
  const raw = obj[field];
  if (raw === undefined || raw === null) return undefined;
  const p = pathKey(path, field);
  if (typeof raw !== "string") {
    issues.error(p, "wrong-type", `expected a Go duration string such as "5m0s", got ${describeValue(raw)}`);
    return undefined;
  }
  try {
    return { value: parseGoDuration(raw), path: p };
  } catch (e) {
    if (!(e instanceof DurationError)) throw e;
    issues.error(p, "invalid-duration", e.message);
    return undefined;
  }
}

function readStringList(
  obj: RawObject,
  field: string,
  path: string,
  issues: IssueList,
): SettingList | undefined {
  const raw = obj[field];
  if (raw === undefined || raw === null) return undefined;
  const p = pathKey(path, field);
  if (!Array.isArray(raw)) {
    issues.error(p, "wrong-type", `expected a list of strings, got ${describeValue(raw)}`);
    return undefined;
  }
  const items: Setting<string>[] = [];
  raw.forEach((item: unknown, i) => {
    if (typeof item === "string") items.push({ value: item, path: pathIndex(p, i) });
    else issues.error(pathIndex(p, i), "wrong-type", `expected a string, got ${describeValue(item)}`);
  });
  return { path: p, items };
}

function readEvictionFields(obj: RawObject, path: string, issues: IssueList): EvictionSettingsLayer {
  checkUnknownFields(obj, path, issues);
  const layer: { -readonly [K in keyof EvictionSettingsLayer]: EvictionSettingsLayer[K] } = {
    basePath: path,
  };
  for (const field of EVICTION_MAP_FIELDS) {
    const m = readSignalMap(obj, field, path, issues);
    if (m !== undefined) layer[field] = m;
  }
  const maxPodGrace = readInt32(obj, "evictionMaxPodGracePeriod", path, issues);
  if (maxPodGrace !== undefined) layer.evictionMaxPodGracePeriod = maxPodGrace;
  const transition = readDuration(obj, "evictionPressureTransitionPeriod", path, issues);
  if (transition !== undefined) layer.evictionPressureTransitionPeriod = transition;
  const merge = readBool(obj, "mergeDefaultEvictionSettings", path, issues);
  if (merge !== undefined) layer.mergeDefaultEvictionSettings = merge;
  const memcg = readBool(obj, "kernelMemcgNotification", path, issues);
  if (memcg !== undefined) layer.kernelMemcgNotification = memcg;
  const lsci = readBool(obj, "localStorageCapacityIsolation", path, issues);
  if (lsci !== undefined) layer.localStorageCapacityIsolation = lsci;
  const ena = readStringList(obj, "enforceNodeAllocatable", path, issues);
  if (ena !== undefined) layer.enforceNodeAllocatable = ena;
  return layer;
}

function readTypeMetaString(
  obj: RawObject,
  field: "apiVersion" | "kind",
  path: string,
  issues: IssueList,
): string | undefined {
  const raw = obj[field];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return raw;
  issues.error(pathKey(path, field), "wrong-type", `expected a string, got ${describeValue(raw)}`);
  return "";
}

/**
 * Reads a decoded config object. Accepts `kubelet.config.k8s.io/v1beta1` `KubeletConfiguration`,
 * the OpenShift `machineconfiguration.openshift.io/v1` `KubeletConfig` (its `spec.kubeletConfig`),
 * and an object without apiVersion/kind (warning: the kubelet itself would refuse it).
 */
export function readKubeletConfig(raw: unknown, path: string, issues: IssueList): EvictionSettingsLayer {
  if (!isRawObject(raw)) {
    issues.error(
      path,
      "wrong-type",
      `expected a KubeletConfiguration object (${KUBELET_CONFIG_API_VERSION}), got ${describeValue(raw)}`,
    );
    return { basePath: path };
  }
  const apiVersion = readTypeMetaString(raw, "apiVersion", path, issues);
  const kind = readTypeMetaString(raw, "kind", path, issues);

  if (apiVersion === OPENSHIFT_KUBELET_CONFIG_API_VERSION) {
    if (kind !== OPENSHIFT_KUBELET_CONFIG_KIND) {
      issues.error(
        pathKey(path, "kind"),
        "unsupported-kind",
        `unsupported kind ${JSON.stringify(kind ?? "")} for ${OPENSHIFT_KUBELET_CONFIG_API_VERSION}: expected ${OPENSHIFT_KUBELET_CONFIG_KIND}`,
      );
      return { basePath: path };
    }
    return readOpenShiftWrapper(raw, path, issues);
  }

  if (apiVersion === undefined && kind === undefined) {
    issues.warning(
      path,
      "missing-type-meta",
      `no apiVersion and kind: read as ${KUBELET_CONFIG_API_VERSION} ${KUBELET_CONFIG_KIND} (the kubelet itself refuses a config file without them)`,
    );
  } else {
    if (apiVersion === undefined) {
      issues.warning(path, "missing-type-meta", `no apiVersion: read as ${KUBELET_CONFIG_API_VERSION}`);
    } else if (apiVersion !== KUBELET_CONFIG_API_VERSION && apiVersion !== "") {
      issues.error(
        pathKey(path, "apiVersion"),
        "unsupported-api-version",
        `unsupported apiVersion ${JSON.stringify(apiVersion)}: expected ${KUBELET_CONFIG_API_VERSION} (or ${OPENSHIFT_KUBELET_CONFIG_API_VERSION} for an OpenShift ${OPENSHIFT_KUBELET_CONFIG_KIND})`,
      );
    }
    if (kind === undefined) {
      issues.warning(path, "missing-type-meta", `no kind: read as ${KUBELET_CONFIG_KIND}`);
    } else if (kind !== KUBELET_CONFIG_KIND && kind !== "") {
      issues.error(
        pathKey(path, "kind"),
        "unsupported-kind",
        `unsupported kind ${JSON.stringify(kind)}: expected ${KUBELET_CONFIG_KIND}`,
      );
    }
  }
  return readEvictionFields(raw, path, issues);
}

function readOpenShiftWrapper(raw: RawObject, path: string, issues: IssueList): EvictionSettingsLayer {
  const specPath = pathKey(path, "spec");
  const innerPath = pathKey(specPath, "kubeletConfig");
  const spec = raw["spec"];
  const inner = isRawObject(spec) ? spec["kubeletConfig"] : undefined;
  if (!isRawObject(inner)) {
    issues.error(
      innerPath,
      "missing-field",
      `an OpenShift ${OPENSHIFT_KUBELET_CONFIG_KIND} must hold the KubeletConfiguration in spec.kubeletConfig, got ${describeValue(inner)}`,
    );
    return { basePath: innerPath };
  }
  // The operator fills in apiVersion/kind itself, so the embedded object may omit them.
  const apiVersion = readTypeMetaString(inner, "apiVersion", innerPath, issues);
  const kind = readTypeMetaString(inner, "kind", innerPath, issues);
  if (apiVersion !== undefined && apiVersion !== "" && apiVersion !== KUBELET_CONFIG_API_VERSION) {
    issues.error(
      pathKey(innerPath, "apiVersion"),
      "unsupported-api-version",
      `unsupported apiVersion ${JSON.stringify(apiVersion)}: expected ${KUBELET_CONFIG_API_VERSION}`,
    );
  }
  if (kind !== undefined && kind !== "" && kind !== KUBELET_CONFIG_KIND) {
    issues.error(
      pathKey(innerPath, "kind"),
      "unsupported-kind",
      `unsupported kind ${JSON.stringify(kind)}: expected ${KUBELET_CONFIG_KIND}`,
    );
  }
  return readEvictionFields(inner, innerPath, issues);
}
