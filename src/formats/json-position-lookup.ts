/**
 * Line:column of issue paths in JSON text, found by scanning the text itself: the same positions
 * the YAML-based lookup gives (a member's key, a list item's value, the first of duplicate keys),
 * without building a YAML tree of the whole file, which for a recorded trace of tens of megabytes
 * takes seconds and gigabytes. Only for text that JSON.parse accepted. Each object or list on a
 * looked-up path is indexed once, so many issues in one file cost one pass, not one each.
 */
import { parseIssuePath, type PositionLookup, type SourcePosition } from "./position-lookup.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Where a member or item is written (`at`: its key, or the item itself) and its value starts. */
interface Entry {
  readonly at: number;
  readonly value: number;
}

function skipSpace(text: string, pos: number): number {
  let i = pos;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Offset just after the string starting at `pos` (its opening quote). */
function stringEnd(text: string, pos: number): number {
  for (let from = pos + 1; ;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Offset just after the value starting at `pos`. */
function valueEnd(text: string, pos: number): number {
  const first = text.charCodeAt(pos);
  if (first === QUOTE) return stringEnd(text, pos);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = pos; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = stringEnd(text, i) - 1;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    return text.length;
  }
  // A number or a literal: up to the next delimiter.
  let i = pos;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
    i++;
  }
  return i;
}

/** A JSON string token's value (most keys hold no escape and need no decoding). */
function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes("\\") ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

function indexObject(text: string, pos: number): Map<string, Entry> {
  const members = new Map<string, Entry>();
  let i = skipSpace(text, pos + 1);
  while (i < text.length && text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const key = keyText(text, i, keyEnd);
    let value = skipSpace(text, keyEnd);
    if (text.charCodeAt(value) === COLON) value = skipSpace(text, value + 1);
    // The first of duplicate keys, as the YAML lookup finds it.
    if (!members.has(key)) members.set(key, { at: i, value });
    i = skipSpace(text, valueEnd(text, value));
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return members;
}

function indexList(text: string, pos: number): number[] {
  const items: number[] = [];
  let i = skipSpace(text, pos + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACKET) {
    items.push(i);
    i = skipSpace(text, valueEnd(text, i));
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return items;
}

/** A lookup over JSON `text` (already known to be valid); positions point at the key or the item. */
export function createJsonPositionLookup(text: string): PositionLookup {
  const objects = new Map<number, Map<string, Entry>>();
  const lists = new Map<number, number[]>();
  let newlines: number[] | undefined;

  function child(pos: number, seg: string | number): Entry | undefined {
    const c = text.charCodeAt(pos);
    if (c === OPEN_BRACE) {
      let members = objects.get(pos);
      if (members === undefined) {
        members = indexObject(text, pos);
        objects.set(pos, members);
      }
      return members.get(String(seg));
    }
    if (c === OPEN_BRACKET && typeof seg === "number") {
      let items = lists.get(pos);
      if (items === undefined) {
        items = indexList(text, pos);
        lists.set(pos, items);
      }
      const item = items[seg];
      return item === undefined ? undefined : { at: item, value: item };
    }
    return undefined;
  }

  function position(offset: number): SourcePosition {
    if (newlines === undefined) {
      newlines = [];
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", nl + 1)) newlines.push(nl);
    }
    // Lines before `offset`: the number of newlines below it.
    let lo = 0;
    let hi = newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((newlines[mid] ?? 0) < offset) lo = mid + 1;
      else hi = mid;
    }
    const lineStart = lo === 0 ? 0 : (newlines[lo - 1] ?? -1) + 1;
    return { line: lo + 1, column: offset - lineStart + 1 };
  }

  return {
    locate(path: string): SourcePosition | undefined {
      const segments = parseIssuePath(path);
      if (segments === undefined) return undefined;
      let value = skipSpace(text, 0);
      if (value >= text.length) return undefined;
      let at = segments.length === 0 ? value : undefined;
      // Walk as deep as the text goes: a key that is absent (a default) points at its parent, one
      // absent from the root at nothing (as the YAML lookup does).
      for (const seg of segments) {
        const next = child(value, seg);
        if (next === undefined) break;
        at = next.at;
        value = next.value;
      }
      return at === undefined ? undefined : position(at);
    },
  };
}
