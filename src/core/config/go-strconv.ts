/**
 * Go's `strconv.ParseBool` and `strconv.ParseInt(s, 0, 32)`, which pflag uses for the kubelet's
 * boolean and int32 flags: the accepted spellings (`T`, `0x1f`, `0o17`, `017`, `1_000`) and the
 * exact error texts (`strconv.ParseInt: parsing "x": invalid syntax`) are observable.
 */
import { goQuote } from "../go-quote.js";

export type StrconvResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

const TRUE_SPELLINGS = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE_SPELLINGS = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** `strconv.ParseBool`. */
export function parseGoBool(s: string): StrconvResult<boolean> {
  if (TRUE_SPELLINGS.has(s)) return { ok: true, value: true };
  if (FALSE_SPELLINGS.has(s)) return { ok: true, value: false };
  return { ok: false, message: `strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax` };
}

function digitValue(c: string): number {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 122) return lower - 97 + 10; // a-z
  return 99;
}

// strconv.underscoreOK: with base 0, `_` may only separate digits (or follow a base prefix).
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s.startsWith("-") || s.startsWith("+")) s = s.slice(1);
  let isHex = false;
  const p = s[1]?.toLowerCase();
  if (s.length >= 2 && s[0] === "0" && (p === "b" || p === "o" || p === "x")) {
    i = 2;
    saw = "0";
    isHex = p === "x";
  }
  for (; i < s.length; i++) {
    const c = s[i] ?? "";
    const lc = c.toLowerCase();
    if ((c >= "0" && c <= "9") || (isHex && lc >= "a" && lc <= "f")) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** `strconv.ParseInt(s, 0, bitSize)`: base from the prefix, underscores allowed, range-checked. */
export function parseGoInt(s: string, bitSize: 32 | 64 = 32): StrconvResult<bigint> {
  const syntax = { ok: false, message: `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax` } as const;
  const range = {
    ok: false,
    message: `strconv.ParseInt: parsing ${goQuote(s)}: value out of range`,
  } as const;
  if (s === "") return syntax;
  let body = s;
  const negative = body.startsWith("-");
  if (negative || body.startsWith("+")) body = body.slice(1);
  if (body === "") return syntax;

  let base = 10;
  if (body[0] === "0") {
    const p = body[1]?.toLowerCase();
    if (body.length >= 3 && p === "b") [base, body] = [2, body.slice(2)];
    else if (body.length >= 3 && p === "o") [base, body] = [8, body.slice(2)];
    else if (body.length >= 3 && p === "x") [base, body] = [16, body.slice(2)];
    else [base, body] = [8, body.slice(1)];
  }

  // ParseUint works at the same bit size and reports overflow as soon as it happens.
  const maxUnsigned = (1n << BigInt(bitSize)) - 1n;
  let n = 0n;
  let underscores = false;
  for (const c of body) {
    if (c === "_") {
      underscores = true;
      continue;
    }
    const d = digitValue(c);
    if (d >= base) return syntax;
    n = n * BigInt(base) + BigInt(d);
    if (n > maxUnsigned) return range;
  }
  if (underscores && !underscoreOK(s)) return syntax;

  const cutoff = 1n << BigInt(bitSize - 1);
  if (!negative && n >= cutoff) return range;
  if (negative && n > cutoff) return range;
  return { ok: true, value: negative ? -n : n };
}
