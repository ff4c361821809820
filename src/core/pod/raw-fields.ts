/**
 * Typed reads of fields out of parsed JSON/YAML (`unknown`), recording an issue for every value of
 * the wrong type instead of stopping, the way the API server's strict decoder would reject them.
 */
import { pathIndex, pathKey, type IssueList } from "../issues.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";

function typeError(issues: IssueList, path: string, expected: string, value: unknown): void {
  issues.error(path, "invalid-type", `expected ${expected}, got ${describeValue(value)}`);
}

/** Go's JSON decoder leaves a field at its zero value for both `null` and absence. */
function absent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

export function readString(obj: RawObject, key: string, path: string, issues: IssueList): string | undefined {
  const value = obj[key];
  if (absent(value)) return undefined;
  if (typeof value === "string") return value;
  typeError(issues, pathKey(path, key), "a string", value);
  return undefined;
}

/** A string that must be present and non-empty (names); absence is reported as `missing-field`. */
export function readRequiredString(
  obj: RawObject,
  key: string,
  path: string,
  issues: IssueList,
  what: string,
): string | undefined {
  const value = readString(obj, key, path, issues);
  if (value !== undefined && value !== "") return value;
  if (absent(obj[key]) || value === "") {
    issues.error(pathKey(path, key), "missing-field", `${what} is required`);
  }
  return undefined;
}

/** An integer within [min, max] (int32/int64 fields); JSON numbers beyond 2^53 are refused. */
export function readInteger(
  obj: RawObject,
  key: string,
  path: string,
  issues: IssueList,
  range: { readonly min: number; readonly max: number } = {
    min: Number.MIN_SAFE_INTEGER,
    max: Number.MAX_SAFE_INTEGER,
  },
): number | undefined {
  const value = obj[key];
  if (absent(value)) return undefined;
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n)) {
    typeError(issues, pathKey(path, key), "an integer", value);
    return undefined;
  }
  if (n < range.min || n > range.max || !Number.isSafeInteger(n)) {
    issues.error(
      pathKey(path, key),
      "invalid-value",
      `${describeValue(value)} is out of range (${range.min}..${range.max})`,
    );
    return undefined;
  }
  return n;
}

export function readObject(
  obj: RawObject,
  key: string,
  path: string,
  issues: IssueList,
): RawObject | undefined {
  const value = obj[key];
  if (absent(value)) return undefined;
  if (isRawObject(value)) return value;
  typeError(issues, pathKey(path, key), "an object", value);
  return undefined;
}

export function readArray(
  obj: RawObject,
  key: string,
  path: string,
  issues: IssueList,
): readonly unknown[] | undefined {
  const value = obj[key];
  if (absent(value)) return undefined;
  if (Array.isArray(value)) return value as readonly unknown[];
  typeError(issues, pathKey(path, key), "a list", value);
  return undefined;
}

/** A list of strings (command, args); wrong elements are reported and dropped. */
export function readStringList(
  obj: RawObject,
  key: string,
  path: string,
  issues: IssueList,
): string[] | undefined {
  const list = readArray(obj, key, path, issues);
  if (list === undefined) return undefined;
  const listPath = pathKey(path, key);
  const out: string[] = [];
  list.forEach((item, i) => {
    if (typeof item === "string") out.push(item);
    else typeError(issues, pathIndex(listPath, i), "a string", item);
  });
  return out;
}

/** A map of string to string (labels, annotations). */
export function readStringMap(
  obj: RawObject,
  key: string,
  path: string,
  issues: IssueList,
): Record<string, string> {
  const map = readObject(obj, key, path, issues);
  const out: Record<string, string> = {};
  if (map === undefined) return out;
  const mapPath = pathKey(path, key);
  for (const [k, v] of Object.entries(map)) {
    if (typeof v === "string") {
      // defineProperty keeps a key such as "__proto__" an ordinary entry.
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    } else if (v !== null) {
      typeError(issues, pathKey(mapPath, k), "a string", v);
    }
  }
  return out;
}
