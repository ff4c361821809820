/**
 * JSON.parse that keeps integers a double cannot hold: Summary API counters are uint64, and
 * 18446744073709551615 (seen in real fixtures) would silently become 18446744073709552000.
 */
import { EXACT_INT_PREFIX, exactInteger } from "../../core/summary/exact-integer.js";
import { JsonSyntaxError, jsonSyntaxErrorFrom } from "./json-syntax-error.js";

export { EXACT_INT_PREFIX, exactInteger, JsonSyntaxError };

// Any integer above 2^53 − 1 has at least 16 digits. Most texts have no such run at all and go
// straight to JSON.parse; the rest get one linear pass that rewrites only the oversized tokens.
const LONG_DIGIT_RUN = /\d{16}/;
const LONG_DIGIT_RUNS = /\d{16,}/g;
const NUMBER_TOKEN = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/**
 * Parses `text` like `JSON.parse`, except that a number whose integer part exceeds 2^53 − 1 in
 * magnitude (`18446744073709551615`, `-99999999999999999`, `12345678901234567.5`) comes out as the
 * sentinel string `EXACT_INT_PREFIX + token`; `exactInteger` reads it back as a bigint. Node 20's
 * JSON.parse gives reviver callbacks no access to the source text, hence the rewrite.
 *
 * Throws `JsonSyntaxError` (never a bare SyntaxError) with the line and column of the problem.
 */
export function parseJsonExact(text: string): unknown {
  const source = LONG_DIGIT_RUN.test(text) ? protectLargeNumbers(text) : text;
  try {
    return JSON.parse(source);
  } catch (error) {
    if (source === text) throw jsonSyntaxErrorFrom(error, text);
    // Positions in the rewritten text are shifted: report the error as found in the original.
    try {
      JSON.parse(text);
    } catch (original) {
      throw jsonSyntaxErrorFrom(original, text);
    }
    throw jsonSyntaxErrorFrom(error, text);
  }
}

/**
 * Rewrites every bare numeric token too large for a double into a sentinel string literal. String state
 * is tracked by jumping between quote characters, and reset at line breaks (a raw newline cannot occur
 * inside a JSON string), so the cost is one pass over the text up to the last candidate.
 */
function protectLargeNumbers(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  let scanned = 0;
  let inString = false;
  let nextNewline = -1;
  LONG_DIGIT_RUNS.lastIndex = 0;
  for (let run = LONG_DIGIT_RUNS.exec(text); run !== null; run = LONG_DIGIT_RUNS.exec(text)) {
    const runStart = run.index;
    if (nextNewline < scanned) nextNewline = indexOrEnd(text, "\n", scanned);
    if (nextNewline < runStart) {
      // Bounded: there is a newline at or after `nextNewline`, so the backward search stops there.
      scanned = text.lastIndexOf("\n", runStart) + 1;
      inString = false;
      nextNewline = -1;
    }
    inString = advanceStringState(text, scanned, runStart, inString);
    scanned = runStart;
    if (inString) continue;

    let start = runStart;
    while (start > 0 && isNumberChar(text.charCodeAt(start - 1))) start--;
    let end = runStart + run[0].length;
    while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
    LONG_DIGIT_RUNS.lastIndex = end;
    scanned = end;
    const token = text.slice(start, end);
    if (!needsProtection(token)) continue;
    parts.push(text.slice(copied, start), `"\\u0000int:${token}"`);
    copied = end;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join("");
}

/** Whether the string state flips between `from` and `to`, following quotes and backslash escapes. */
function advanceStringState(text: string, from: number, to: number, inString: boolean): boolean {
  let state = inString;
  for (let quote = text.indexOf('"', from); quote !== -1 && quote < to; quote = text.indexOf('"', quote + 1)) {
    if (state) {
      let backslashes = 0;
      while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
      if (backslashes % 2 === 0) state = false;
    } else {
      state = true;
    }
  }
  return state;
}

/** A valid JSON number token whose integer part is beyond Number.MAX_SAFE_INTEGER in magnitude. */
function needsProtection(token: string): boolean {
  const match = NUMBER_TOKEN.exec(token);
  const intPart = match?.[1];
  if (intPart === undefined) return false; // not a number: leave it for JSON.parse to reject
  if (intPart.length !== MAX_SAFE_DIGITS.length) return intPart.length > MAX_SAFE_DIGITS.length;
  return intPart > MAX_SAFE_DIGITS;
}

function isNumberChar(c: number): boolean {
  // 0-9 . - + e E
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d || c === 0x2b || c === 0x65 || c === 0x45;
}

function indexOrEnd(text: string, search: string, from: number): number {
  const i = text.indexOf(search, from);
  return i === -1 ? text.length : i;
}
