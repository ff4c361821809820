/**
 * The value syntaxes of the kubelet's map and list flags: component-base's
 * `LangleSeparatedMapStringString` (`k<v,k<v`) and `MapStringString` (`k=v,k=v`), and pflag's
 * `StringSlice` (one CSV record).
 */

export interface FlagPair {
  readonly key: string;
  readonly value: string;
}

export interface MapFlagValue {
  /** Well-formed pairs, in order; later duplicates of a key overwrite earlier ones when applied. */
  readonly pairs: readonly FlagPair[];
  /** Upstream's message when a segment lacks the separator (upstream stops there; we keep going). */
  readonly malformed?: string;
}

// Go's unicode.IsSpace set, which strings.TrimSpace strips (JS trim() differs on U+0085, U+FEFF).
const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const LEADING_SPACE = new RegExp(`^${GO_SPACE}+`, "u");
const TRAILING_SPACE = new RegExp(`${GO_SPACE}+$`, "u");

/** `strings.TrimSpace`. */
export function goTrimSpace(s: string): string {
  return s.replace(LEADING_SPACE, "").replace(TRAILING_SPACE, "");
}

/**
 * Splits a map flag value: segments on `,` (empty ones skipped), each split on the first
 * separator, key and value trimmed. An empty key is kept (the threshold parser rejects it later).
 */
export function parseMapFlagValue(value: string, separator: "<" | "="): MapFlagValue {
  const pairs: FlagPair[] = [];
  let malformed: string | undefined;
  for (const segment of value.split(",")) {
    if (segment.length === 0) continue;
    const at = segment.indexOf(separator);
    if (at < 0) {
      malformed ??= `malformed pair, expect string${separator}string`;
      continue;
    }
    pairs.push({ key: goTrimSpace(segment.slice(0, at)), value: goTrimSpace(segment.slice(at + 1)) });
  }
  return malformed === undefined ? { pairs } : { pairs, malformed };
}

export type StringSliceValue =
  { readonly ok: true; readonly items: readonly string[] } | { readonly ok: false; readonly message: string };

/**
 * pflag's `StringSlice.Set`: "" is the empty list, anything else is read as a single CSV record
 * (Go `encoding/csv`: `"` quoting with `""` escapes, no trimming, only the first line is read).
 */
export function parseStringSliceFlagValue(value: string): StringSliceValue {
  if (value === "") return { ok: true, items: [] };
  const line = value.split(/\r?\n/u)[0] ?? "";
  const items: string[] = [];
  let i = 0;
  const fail = (column: number, what: string): StringSliceValue => ({
    ok: false,
    message: `parse error on line 1, column ${column}: ${what}`,
  });
  for (;;) {
    let field = "";
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return fail(i + 1, 'extraneous or missing " in quoted-field');
        const c = line[i] ?? "";
        if (c === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += c;
        i++;
      }
      if (i < line.length && line[i] !== ",") return fail(i + 1, 'extraneous or missing " in quoted-field');
    } else {
      const end = line.indexOf(",", i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      const quote = field.indexOf('"');
      if (quote >= 0) return fail(i + quote + 1, 'bare " in non-quoted-field');
      i = end < 0 ? line.length : end;
    }
    items.push(field);
    if (i >= line.length) break;
    i++; // skip the comma; a trailing comma yields a final empty field
    if (i >= line.length) {
      items.push("");
      break;
    }
  }
  return { ok: true, items };
}
