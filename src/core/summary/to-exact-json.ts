/** JSON text that keeps every digit of integers a double cannot hold (uint64 Summary API counters). */
import { EXACT_INT_PREFIX } from "./exact-integer.js";

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * JSON text in which integers stay exact: bigints, and the sentinel strings parseJsonExact leaves
 * for numbers a double cannot hold, are written as their digits (Summary API counters are uint64;
 * JSON.stringify would throw on a bigint or round 18446744073709551615). Otherwise as
 * JSON.stringify: `toJSON` honoured, undefined members skipped, non-finite numbers as null.
 */
export function toExactJson(value: unknown, pretty = false): string {
  const step = pretty ? "  " : "";
  const write = (v: unknown, indent: string): string | undefined => {
    if (v !== null && typeof v === "object" && "toJSON" in v && typeof v.toJSON === "function") {
      v = (v as { toJSON(): unknown }).toJSON();
    }
    switch (typeof v) {
      case "bigint":
        return v.toString();
      case "string":
        if (v.startsWith(EXACT_INT_PREFIX) && JSON_NUMBER.test(v.slice(EXACT_INT_PREFIX.length)))
          return v.slice(EXACT_INT_PREFIX.length);
        return JSON.stringify(v);
      case "number":
        return Number.isFinite(v) ? JSON.stringify(v) : "null";
      case "boolean":
        return v ? "true" : "false";
      case "object": {
        if (v === null) return "null";
        const inner = indent + step;
        const open = pretty ? `\n${inner}` : "";
        const sep = pretty ? `,\n${inner}` : ",";
        const close = pretty ? `\n${indent}` : "";
        if (Array.isArray(v)) {
          if (v.length === 0) return "[]";
          return `[${open}${v.map((x) => write(x, inner) ?? "null").join(sep)}${close}]`;
        }
        const members: string[] = [];
        for (const [k, x] of Object.entries(v)) {
          const s = write(x, inner);
          if (s !== undefined) members.push(`${JSON.stringify(k)}:${pretty ? " " : ""}${s}`);
        }
        return members.length === 0 ? "{}" : `{${open}${members.join(sep)}${close}}`;
      }
      default:
        return undefined; // undefined, functions, symbols: skipped, as JSON.stringify does
    }
  };
  return write(value, "") ?? "null";
}
