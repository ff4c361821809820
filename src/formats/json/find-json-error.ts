/**
 * Locates the first syntax error in a JSON text. Only used after JSON.parse has failed: V8's messages
 * carry "at position N" for most errors but not for an unexpected token (`Unexpected token '}', "..."
 * is not valid JSON`), and a file reader must still point at a line and column.
 */

const ARRAY = 0;
const OBJECT = 1;

/**
 * The offset (UTF-16 code units) of the first character that makes `text` invalid JSON (RFC 8259),
 * `text.length` when the text ends too early, or `undefined` when it is valid. Iterative, so deeply
 * nested input cannot overflow the stack.
 */
export function findJsonErrorOffset(text: string): number | undefined {
  const n = text.length;
  const stack: number[] = [];
  let i = skipWhitespace(text, 0);
  let expectValue = true;
  for (;;) {
    if (expectValue) {
      if (i >= n) return n;
      const c = text.charCodeAt(i);
      if (c === 0x7b) {
        // {
        i = skipWhitespace(text, i + 1);
        if (text.charCodeAt(i) === 0x7d) {
          i = skipWhitespace(text, i + 1);
          expectValue = false;
          continue;
        }
        const afterKey = scanMemberKey(text, i);
        if (afterKey < 0) return -afterKey - 1;
        stack.push(OBJECT);
        i = afterKey;
        continue;
      }
      if (c === 0x5b) {
        // [
        i = skipWhitespace(text, i + 1);
        if (text.charCodeAt(i) === 0x5d) {
          i = skipWhitespace(text, i + 1);
          expectValue = false;
          continue;
        }
        stack.push(ARRAY);
        continue;
      }
      const end = scanScalar(text, i);
      if (end < 0) return -end - 1;
      i = skipWhitespace(text, end);
      expectValue = false;
      continue;
    }
    const top = stack.at(-1);
    if (top === undefined) return i < n ? i : undefined;
    if (i >= n) return n;
    const c = text.charCodeAt(i);
    if (c === 0x2c) {
      // ,
      i = skipWhitespace(text, i + 1);
      if (top === OBJECT) {
        const afterKey = scanMemberKey(text, i);
        if (afterKey < 0) return -afterKey - 1;
        i = afterKey;
      }
      expectValue = true;
    } else if ((c === 0x5d && top === ARRAY) || (c === 0x7d && top === OBJECT)) {
      stack.pop();
      i = skipWhitespace(text, i + 1);
    } else {
      return i;
    }
  }
}

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** `"key"` then `:` and whitespace; returns where the value starts, or -(error offset) - 1. */
function scanMemberKey(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x22) return i >= text.length ? -text.length - 1 : -i - 1;
  const end = scanString(text, i);
  if (end < 0) return end;
  const colon = skipWhitespace(text, end);
  if (text.charCodeAt(colon) !== 0x3a) return colon >= text.length ? -text.length - 1 : -colon - 1;
  return skipWhitespace(text, colon + 1);
}

/** A string, number or literal starting at `i`; returns its end, or -(error offset) - 1. */
function scanScalar(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return scanString(text, i);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return scanNumber(text, i);
  for (const literal of ["true", "false", "null"]) {
    if (c === literal.charCodeAt(0)) {
      for (let k = 1; k < literal.length; k++) {
        if (text.charCodeAt(i + k) !== literal.charCodeAt(k)) return -Math.min(i + k, text.length) - 1;
      }
      return i + literal.length;
    }
  }
  return -i - 1;
}

function scanString(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return -j - 1;
    if (c === 0x5c) {
      const e = text.charCodeAt(j + 1);
      if (e === 0x75) {
        // \uXXXX
        for (let k = 2; k < 6; k++) {
          if (!isHexDigit(text.charCodeAt(j + k))) return -Math.min(j + k, n) - 1;
        }
        j += 6;
        continue;
      }
      // " \ / b f n r t
      if (![0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(e)) return -Math.min(j + 1, n) - 1;
      j += 2;
      continue;
    }
    j++;
  }
  return -n - 1;
}

function scanNumber(text: string, i: number): number {
  let j = i;
  if (text.charCodeAt(j) === 0x2d) j++;
  if (text.charCodeAt(j) === 0x30) {
    j++;
  } else {
    const start = j;
    j = skipDigits(text, j);
    if (j === start) return -Math.min(j, text.length) - 1;
  }
  if (text.charCodeAt(j) === 0x2e) {
    const start = j + 1;
    j = skipDigits(text, start);
    if (j === start) return -Math.min(j, text.length) - 1;
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j++;
    const sign = text.charCodeAt(j);
    if (sign === 0x2b || sign === 0x2d) j++;
    const start = j;
    j = skipDigits(text, start);
    if (j === start) return -Math.min(j, text.length) - 1;
  }
  return j;
}

function skipDigits(text: string, i: number): number {
  let j = i;
  for (let c = text.charCodeAt(j); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++j));
  return j;
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
