/**
 * Reads a YAML or JSON file into plain data, with every failure as an issue naming the file:
 * missing or unreadable, empty, binary, syntax errors with line:column. JSON takes a fast path
 * (recorded traces are tens of megabytes) that keeps uint64 counters exact; YAML integers beyond
 * 2^53 become bigint for the same reason.
 */
import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument, type ScalarTag, type Tags } from "yaml";
import type { Issue } from "../../core/issues.js";
import { JsonSyntaxError, parseJsonExact } from "../json/parse-json-exact.js";

export type StructuredFile =
  | { readonly ok: true; readonly value: unknown; readonly text: string; readonly format: "json" | "yaml" }
  | { readonly ok: false; readonly issues: Issue[] };

/** YAML integers: numbers while exact, bigint beyond 2^53 (inode counts of 2^64−1 occur). */
const exactIntTag: ScalarTag = {
  identify: (v: unknown) => typeof v === "bigint",
  default: true,
  tag: "tag:yaml.org,2002:int",
  test: /^[-+]?[0-9]+$/,
  resolve: (s: string): number | bigint => {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : BigInt(s);
  },
};

export const YAML_OPTIONS = {
  customTags: (tags: Tags): Tags => [exactIntTag, ...tags],
} as const;

function fileIssue(file: string, path: string, message: string, line?: number, column?: number): Issue {
  return {
    severity: "error",
    path,
    code: "file",
    message,
    file,
    ...(line !== undefined ? { line } : {}),
    ...(column !== undefined ? { column } : {}),
  };
}

/** Parses text already read; `file` and `path` only label the issues. */
export function parseStructuredText(text: string, file: string, path: string): StructuredFile {
  if (text.trim() === "") return { ok: false, issues: [fileIssue(file, path, "the file is empty")] };
  const first = text.trimStart()[0];
  if (first === "{" || first === "[") {
    try {
      return { ok: true, value: parseJsonExact(text), text, format: "json" };
    } catch (e) {
      if (e instanceof JsonSyntaxError) {
        return { ok: false, issues: [fileIssue(file, path, `invalid JSON: ${e.message}`, e.line, e.column)] };
      }
      throw e;
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((err) => {
        const pos = lineCounter.linePos(err.pos[0]);
        return fileIssue(file, path, `invalid YAML: ${err.message.split("\n")[0] ?? err.message}`, pos.line, pos.col);
      }),
    };
  }
  const value: unknown = doc.toJS({ maxAliasCount: 1000 });
  if (value === null || value === undefined) {
    return { ok: false, issues: [fileIssue(file, path, "the file holds no document")] };
  }
  return { ok: true, value, text, format: "yaml" };
}

/** Reads and parses a file; never throws for bad input. */
export async function readStructuredFile(file: string, path: string): Promise<StructuredFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : `cannot read (${code ?? String(e)})`;
    return { ok: false, issues: [fileIssue(file, path, `${why}: ${file}`)] };
  }
  if (bytes.includes(0)) {
    return { ok: false, issues: [fileIssue(file, path, "the file is binary (it contains NUL bytes), expected YAML or JSON")] };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, issues: [fileIssue(file, path, "the file is not valid UTF-8 text, expected YAML or JSON")] };
  }
  return parseStructuredText(text, file, path);
}
