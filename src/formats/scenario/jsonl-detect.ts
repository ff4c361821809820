/**
 * Telling a JSONL scenario from a document (docs/replay-format.md, "JSONL scenarios"): by its name
 * (`.jsonl`, `.ndjson`), or, for any input, by its text: not one JSON document, but a first line that
 * is a complete JSON object followed by more lines that are JSON objects. One line followed by
 * another object line can never be a single JSON (or YAML) document, so the test is cheap: the first
 * line is parsed only when the next non-blank line starts with `{`.
 */
import { parseJsonExact } from "../json/parse-json-exact.js";
import { isRawObject } from "../../core/raw/raw-object.js";

export function isJsonlFileName(file: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(file);
}

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xfeff;

function skipBlank(text: string, from: number): number {
  let i = from;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Whether `text` is a JSONL scenario. With `complete` false, `text` is only the beginning of the
 * input, and the answer is undefined when it does not tell yet (the first line is not complete, or
 * nothing but blanks follows it so far).
 */
export function sniffJsonl(text: string, complete: boolean): boolean | undefined {
  const start = skipBlank(text, 0);
  if (start === text.length) return complete ? false : undefined;
  if (text[start] !== "{") return false;
  const nl = text.indexOf("\n", start);
  if (nl === -1) return complete ? false : undefined;
  const next = skipBlank(text, nl + 1);
  if (next === text.length) return complete ? false : undefined;
  if (text[next] !== "{") return false;
  try {
    return isRawObject(parseJsonExact(text.slice(start, nl)));
  } catch {
    return false;
  }
}
