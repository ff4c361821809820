/**
 * Reads a YAML or JSON file into plain data, every failure an issue naming the file: missing or
 * unreadable, empty, binary, not UTF-8, too large for one string, syntax errors with line:column,
 * several documents.
 * JSON takes a fast path (recorded traces are tens of megabytes) that keeps uint64 counters exact;
 * YAML integers beyond 2^53 become bigint for the same reason. Line:column positions for issues
 * found later (by the pure core) are computed lazily, only when an issue needs one.
 */
import { readFile, stat } from "node:fs/promises";
import { LineCounter, isScalar, parseAllDocuments, type Document, type ScalarTag, type Tags } from "yaml";
import type { Issue } from "../core/issues.js";
import { JsonSyntaxError, parseJsonExact } from "./json/parse-json-exact.js";
import { createJsonPositionLookup } from "./json-position-lookup.js";
import { createPositionLookup, type PositionLookup } from "./position-lookup.js";

export type StructuredFile =
  | {
      readonly ok: true;
      readonly value: unknown;
      readonly format: "json" | "yaml";
      /** Problems that do not stop reading (duplicate keys: the last value wins). */
      readonly warnings: Issue[];
      readonly positions: PositionLookup;
    }
  | { readonly ok: false; readonly issues: Issue[] };

/** YAML integers: numbers while exact, bigint beyond 2^53 (inode counts of 2^64−1 occur). */
export const exactIntTag: ScalarTag = {
  identify: (v: unknown) => typeof v === "bigint",
  default: true,
  tag: "tag:yaml.org,2002:int",
  test: /^[-+]?[0-9]+$/,
  resolve: (s: string): number | bigint => {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : BigInt(s);
  },
};

// YAML 1.2 core schema, as the kubelet's sigs.k8s.io/yaml reads it, with merge keys. yaml's warnings
// (a key that is itself a collection) would go to process.emitWarning, i.e. stderr: silenced.
const YAML_OPTIONS = {
  customTags: (tags: Tags): Tags => [exactIntTag, ...tags],
  merge: true,
  prettyErrors: false,
  logLevel: "silent",
} as const;

function issue(
  file: string,
  path: string,
  code: string,
  message: string,
  pos?: { line: number; col: number },
): Issue {
  const at = pos === undefined ? {} : { line: pos.line, column: pos.col };
  return { severity: "error", path, code, message, file, ...at };
}

function isEmptyDocument(doc: Document): boolean {
  const c = doc.contents;
  // A trailing `---` yields an implicit, zero-length null document; it holds nothing.
  return c === null || (isScalar(c) && c.value === null && c.range?.[0] === c.range?.[2]);
}

/** Positions in a parsed YAML document, the lookup made on first use. */
function lazyPositions(doc: Document, lineCounter: LineCounter): PositionLookup {
  let lookup: PositionLookup | undefined;
  return {
    locate(path) {
      lookup ??= createPositionLookup(doc, lineCounter);
      return lookup.locate(path);
    },
  };
}

function parseYaml(body: string, file: string, path: string): StructuredFile {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(body, { ...YAML_OPTIONS, lineCounter });
  const nonEmpty = docs.filter((d) => !isEmptyDocument(d));
  const first = nonEmpty[0];
  if (first === undefined) {
    return {
      ok: false,
      issues: [
        issue(file, path, "empty-file", "the file holds no YAML document (only comments or blank lines)"),
      ],
    };
  }
  if (nonEmpty.length > 1) {
    const second = nonEmpty[1]?.contents?.range[0];
    return {
      ok: false,
      issues: [
        issue(
          file,
          path,
          "multiple-documents",
          `the file holds ${nonEmpty.length} YAML documents; expected exactly one`,
          second === undefined ? undefined : lineCounter.linePos(second),
        ),
      ],
    };
  }
  const warnings: Issue[] = [];
  const errors: Issue[] = [];
  for (const e of first.errors) {
    const found = issue(
      file,
      path,
      `yaml-${e.code.toLowerCase().replaceAll("_", "-")}`,
      e.message,
      lineCounter.linePos(e.pos[0]),
    );
    // The kubelet decodes strictly first and, on a duplicate field, falls back to lenient decoding
    // (the last value wins) with only a logged warning; the YAML reader keeps the last one too.
    if (e.code === "DUPLICATE_KEY")
      warnings.push({ ...found, severity: "warning", message: `${e.message}: the last value is used` });
    else errors.push(found);
  }
  if (errors.length > 0) return { ok: false, issues: [...errors, ...warnings] };
  try {
    const value: unknown = first.toJS({ maxAliasCount: 1000 });
    return { ok: true, value, format: "yaml", warnings, positions: lazyPositions(first, lineCounter) };
  } catch (e) {
    return {
      ok: false,
      issues: [issue(file, path, "yaml-invalid", e instanceof Error ? e.message : String(e))],
    };
  }
}

/** Parses text already in memory; `file` and `path` only label the issues. */
export function parseStructuredText(text: string, file: string, path: string): StructuredFile {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trim() === "")
    return { ok: false, issues: [issue(file, path, "empty-file", "the file is empty")] };
  const first = body.trimStart()[0];
  if (first === "{" || first === "[") {
    try {
      // Positions by scanning the text: a YAML tree of a large trace would cost far more than the parse.
      return {
        ok: true,
        value: parseJsonExact(body),
        format: "json",
        warnings: [],
        positions: createJsonPositionLookup(body),
      };
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      // Flow-style YAML (`{a: 1}`) is not JSON but is still a valid file; report the JSON error
      // only when YAML cannot read it either.
      const yaml = parseYaml(body, file, path);
      if (yaml.ok) return yaml;
      return {
        ok: false,
        issues: [
          issue(file, path, "json-syntax", `invalid JSON: ${e.reason}`, { line: e.line, col: e.column }),
        ],
      };
    }
  }
  return parseYaml(body, file, path);
}

/** The error code Node puts on a system or internal error, or "". */
function errorCode(e: unknown): string {
  return typeof e === "object" && e !== null && "code" in e ? String(e.code) : "";
}

/**
 * A file too big for one string (V8 caps strings at 2^29 − 24 UTF-16 units, about 512 MiB; Node's
 * readFile refuses 2 GiB and more) cannot be read as one document. A scenario can be: as JSONL.
 */
function tooLarge(bytes: number, path: string): { code: string; message: string } {
  const hint = path === "scenario" ? "; write it as JSONL (one step per line) to stream it" : "";
  return {
    code: "file-too-large",
    message: `the file is too large to read as one document (${Math.round(bytes / 1e6)} MB)${hint}`,
  };
}

/** What a failed read means, for people: missing, a directory, not allowed, or the OS's reason. */
export function describeReadError(e: unknown): { code: string; message: string } {
  const code = errorCode(e);
  switch (code) {
    case "ENOENT":
      return { code: "file-not-found", message: "no such file" };
    case "EISDIR":
      return { code: "file-unreadable", message: "is a directory, not a file" };
    case "EACCES":
    case "EPERM":
      return { code: "file-unreadable", message: "permission denied" };
    default:
      return {
        code: "file-unreadable",
        message: `cannot read: ${e instanceof Error ? e.message : String(e)}`,
      };
  }
}

type TextResult = { ok: true; text: string } | { ok: false; issues: Issue[] };

/** Bytes as UTF-8 text, refusing empty and binary content (from a file or from stdin). */
export function decodeText(bytes: Uint8Array, file: string, path: string): TextResult {
  if (bytes.length === 0)
    return { ok: false, issues: [issue(file, path, "empty-file", "the file is empty")] };
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    return {
      ok: false,
      issues: [
        issue(
          file,
          path,
          "binary-file",
          `the file is binary, not YAML or JSON text (NUL byte at offset ${nul})`,
        ),
      ],
    };
  }
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch (e) {
    if (errorCode(e) === "ERR_STRING_TOO_LONG" || e instanceof RangeError) {
      const { code, message } = tooLarge(bytes.length, path);
      return { ok: false, issues: [issue(file, path, code, message)] };
    }
    return { ok: false, issues: [issue(file, path, "binary-file", "the file is not valid UTF-8 text")] };
  }
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return Number.NaN;
  }
}

/** Reads a file as UTF-8 text, refusing binary content. */
export async function readTextFile(file: string, path: string): Promise<TextResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    const { code, message } =
      errorCode(e) === "ERR_FS_FILE_TOO_LARGE" ? tooLarge(await fileSize(file), path) : describeReadError(e);
    return { ok: false, issues: [issue(file, path, code, message)] };
  }
  return decodeText(bytes, file, path);
}

/** Reads and parses a YAML or JSON file; never throws for bad input. */
export async function readStructuredFile(file: string, path: string): Promise<StructuredFile> {
  const read = await readTextFile(file, path);
  if (!read.ok) return read;
  return parseStructuredText(read.text, file, path);
}
