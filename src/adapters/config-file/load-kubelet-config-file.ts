/**
 * Reads a kubelet config file (YAML, or JSON which is YAML too) into a plain value plus a
 * {@link PositionLookup} for issue locations. Bad input (missing, empty, binary, malformed, several
 * documents) comes back as issues with file:line:column, never as a thrown stack trace.
 */
import { readFile } from "node:fs/promises";
import { LineCounter, type Document, isScalar, parseAllDocuments } from "yaml";
import type { Issue } from "../../core/issues.js";
import { type PositionLookup, createPositionLookup } from "./position-lookup.js";

export type ConfigFileResult =
  | {
      readonly ok: true;
      readonly value: unknown;
      readonly positions: PositionLookup;
      readonly warnings: Issue[];
    }
  | { readonly ok: false; readonly issues: Issue[] };

export interface ConfigFileOptions {
  /** Issue path given to whole-file problems; default `config`. */
  readonly issuePath?: string;
}

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

/**
 * Parses config text already in memory. `file` names it in issues. JSON (text starting with `{`)
 * is decoded with JSON.parse, falling back to YAML for flow-style input JSON rejects.
 */
export function parseKubeletConfigText(
  text: string,
  file: string,
  options: ConfigFileOptions = {},
): ConfigFileResult {
  const path = options.issuePath ?? "config";
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trim() === "")
    return { ok: false, issues: [issue(file, path, "empty-file", "the config file is empty")] };

  const lineCounter = new LineCounter();
  // YAML 1.2 core schema; merge keys on, as the kubelet's YAML decoder (go-yaml) supports them.
  const docs = parseAllDocuments(body, { lineCounter, prettyErrors: false, merge: true });
  const nonEmpty = docs.filter((d) => !isEmptyDocument(d));
  const first = nonEmpty[0];
  if (first === undefined) {
    return {
      ok: false,
      issues: [
        issue(
          file,
          path,
          "empty-file",
          "the config file holds no YAML document (only comments or blank lines)",
        ),
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
          `the config file holds ${nonEmpty.length} YAML documents; a kubelet config file holds exactly one KubeletConfiguration`,
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
    // (the last value wins) with only a logged warning; the YAML reader also keeps the last one.
    if (e.code === "DUPLICATE_KEY")
      warnings.push({ ...found, severity: "warning", message: `${e.message}: the last value is used` });
    else errors.push(found);
  }
  const positions = createPositionLookup(first, lineCounter);

  if (body.trimStart().startsWith("{")) {
    try {
      return { ok: true, value: JSON.parse(body) as unknown, positions, warnings };
    } catch {
      // Not strict JSON (e.g. unquoted keys): read it as the YAML flow mapping it may still be.
    }
  }
  if (errors.length > 0) return { ok: false, issues: [...errors, ...warnings] };
  try {
    return { ok: true, value: first.toJS({ maxAliasCount: 100 }) as unknown, positions, warnings };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, issues: [issue(file, path, "yaml-invalid", message)] };
  }
}

function describeReadError(e: unknown): { code: string; message: string } {
  const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : "";
  switch (code) {
    case "ENOENT":
      return { code: "file-not-found", message: "the config file does not exist" };
    case "EISDIR":
      return { code: "file-unreadable", message: "the config path is a directory, not a file" };
    case "EACCES":
    case "EPERM":
      return { code: "file-unreadable", message: "permission denied reading the config file" };
    default:
      return {
        code: "file-unreadable",
        message: `cannot read the config file: ${e instanceof Error ? e.message : String(e)}`,
      };
  }
}

/** Reads and parses a kubelet config file; `path` is also the `file` named in issues. */
export async function loadKubeletConfigFile(
  path: string,
  options: ConfigFileOptions = {},
): Promise<ConfigFileResult> {
  const issuePath = options.issuePath ?? "config";
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const { code, message } = describeReadError(e);
    return { ok: false, issues: [issue(path, issuePath, code, message)] };
  }
  if (bytes.length === 0)
    return { ok: false, issues: [issue(path, issuePath, "empty-file", "the config file is empty")] };
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    return {
      ok: false,
      issues: [
        issue(
          path,
          issuePath,
          "binary-file",
          `the config file is binary, not text (NUL byte at offset ${nul})`,
        ),
      ],
    };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return {
      ok: false,
      issues: [issue(path, issuePath, "binary-file", "the config file is not valid UTF-8 text")],
    };
  }
  return parseKubeletConfigText(text, path, options);
}
