/**
 * A scenario header's `environment` (docs/replay-format.md, "evictd extension: node environment"),
 * read for display. Informational, so nothing in it stops a replay: a field of the wrong type or an
 * unknown key is a warning and left out. Pure.
 */
import { pathKey, type IssueList } from "../issues.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject } from "../raw/raw-object.js";
import { NODE_INFO_FIELDS, type NodeEnvironment } from "./node-environment.js";

/** The valid fields of `raw`; `undefined` when none is. */
export function decodeNodeEnvironment(
  raw: unknown,
  path: string,
  issues: IssueList,
): NodeEnvironment | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRawObject(raw)) {
    issues.warning(path, "invalid-type", `expected an object, got ${describeValue(raw)} (ignored)`);
    return undefined;
  }
  const env: { -readonly [K in keyof NodeEnvironment]: NodeEnvironment[K] } = {};
  const strings: readonly string[] = NODE_INFO_FIELDS;
  for (const [key, value] of Object.entries(raw)) {
    const at = pathKey(path, key);
    if (strings.includes(key)) {
      if (typeof value === "string") env[key as (typeof NODE_INFO_FIELDS)[number]] = value;
      else issues.warning(at, "invalid-type", `expected a string, got ${describeValue(value)} (ignored)`);
    } else if (key === "statsProvider") {
      if (value === "cadvisor" || value === "cri") env.statsProvider = value;
      else issues.warning(at, "enum", `expected cadvisor or cri, got ${describeValue(value)} (ignored)`);
    } else if (key === "cgroupVersion") {
      if (value === 1 || value === 2) env.cgroupVersion = value;
      else issues.warning(at, "enum", `expected 1 or 2, got ${describeValue(value)} (ignored)`);
    } else issues.warning(at, "unknown-field", `unknown field ${JSON.stringify(key)} (ignored)`);
  }
  return Object.keys(env).length > 0 ? env : undefined;
}
