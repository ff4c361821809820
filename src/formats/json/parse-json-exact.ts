/**
 * JSON.parse that keeps integers a double cannot hold: Summary API counters are uint64, and
 * 18446744073709551615 (seen in real fixtures) would silently become 18446744073709552000.
 */
import { EXACT_INT_PREFIX, exactInteger } from "../../core/summary/exact-integer.js";
import { JsonSyntaxError, jsonSyntaxErrorFrom } from "./json-syntax-error.js";

export { EXACT_INT_PREFIX, exactInteger, JsonSyntaxError };

const NUMBER_TOKEN = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);
// Any integer above 2^53 − 1 has at least this many digits.
const RUN = MAX_SAFE_DIGITS.length;

/**
 * Parses `text` like `JSON.parse`, except that a number whose integer part exceeds 2^53 − 1 in
 * magnitude (`18446744073709551615`, `-99999999999999999`, `12345678901234567.5`) comes out as the
 * sentinel string `EXACT_INT_PREFIX + token`; `exactInteger` reads it back as a bigint. Node 20's
 * JSON.parse gives reviver callbacks no access to the source text, hence the rewrite.
 *
 * Throws `JsonSyntaxError` (never a bare SyntaxError) with the line and column of the problem.
 */
export function parseJsonExact(text: string): unknown {
  // Most texts have no 16-digit run at all and go straight to JSON.parse; the rest get one linear
  // pass that rewrites only the oversized tokens.
  const firstRun = findDigitRun(text, 0);
  const source = firstRun === -1 ? text : protectLargeNumbers(text, firstRun);
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
 * Rewrites every bare numeric token too large for a double into a sentinel string literal. A digit run
 * is first widened to its token and checked: most long runs are safe integers (a node's
 * `usageCoreNanoSeconds` has 16 digits), and those need nothing more. Only for a token that does
 * need protection is the string state worked out, by jumping between quote characters from where it
 * was last known, reset at line breaks (a raw newline cannot occur inside a JSON string), so the text
 * is scanned for quotes at most once, and not at all when nothing needs rewriting.
 */
function protectLargeNumbers(text: string, firstRun: number): string {
  // Built with += : V8 makes a rope and flattens it once inside JSON.parse, which measured faster
  // than Array.prototype.join for a few dozen multi-megabyte slices.
  let out = "";
  let copied = 0;
  let scanned = 0;
  let inString = false;
  let nextNewline = -1;
  for (let run = firstRun; run !== -1;) {
    // The token around the run. Number characters include no quote, so a token never straddles a
    // string boundary: it is wholly inside a string or wholly outside.
    let start = run;
    while (start > 0 && isNumberChar(text.charCodeAt(start - 1))) start--;
    let end = run + RUN;
    while (isNumberChar(text.charCodeAt(end))) end++;
    const token = text.slice(start, end);
    run = findDigitRun(text, end);
    if (!needsProtection(token)) continue;

    if (nextNewline < scanned) nextNewline = indexOrEnd(text, "\n", scanned);
    if (nextNewline < start) {
      // Bounded: there is a newline at or after `nextNewline`, so the backward search stops there.
      scanned = text.lastIndexOf("\n", start) + 1;
      inString = false;
      nextNewline = -1;
    }
    inString = advanceStringState(text, scanned, start, inString);
    // The token holds no quote: the state after it is the state before it.
    scanned = end;
    if (inString) continue;
    out += text.slice(copied, start) + JSON.stringify(EXACT_INT_PREFIX + token);
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Where the next run of at least 16 digits starts at or after `from` (some window of 16 digits; the
 * run may begin earlier), or -1. Skips ahead 16 characters whenever it sees a non-digit, so it reads a
 * fraction of the text: several times faster than `/\d{16}/` on megabytes of JSON.
 */
function findDigitRun(text: string, from: number): number {
  const n = text.length;
  let pos = from + RUN - 1;
  while (pos < n) {
    if (!isDigit(text.charCodeAt(pos))) {
      pos += RUN;
      continue;
    }
    const low = pos - RUN + 1;
    let j = pos - 1;
    while (j >= low && isDigit(text.charCodeAt(j))) j--;
    if (j < low) return low;
    pos = j + RUN;
  }
  return -1;
}

/** Whether the string state flips between `from` and `to`, following quotes and backslash escapes. */
function advanceStringState(text: string, from: number, to: number, inString: boolean): boolean {
  let state = inString;
  for (
    let quote = text.indexOf('"', from);
    quote !== -1 && quote < to;
    quote = text.indexOf('"', quote + 1)
  ) {
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

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isNumberChar(c: number): boolean {
  // 0-9 . - + e E
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d || c === 0x2b || c === 0x65 || c === 0x45;
}

function indexOrEnd(text: string, search: string, from: number): number {
  const i = text.indexOf(search, from);
  return i === -1 ? text.length : i;
}
