/**
 * Maps issue paths (`evictionHard["memory.available"]`, `flags[2]`) to line:column positions in a
 * parsed YAML/JSON document, and attaches them to issues, so that problems found by the pure core
 * point back into the file the user wrote.
 */
import { type Document, type LineCounter, type Node, isAlias, isMap, isScalar, isSeq } from "yaml";
import type { Issue } from "../core/issues.js";

export interface SourcePosition {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

/** Finds where a path (relative to the document root) is written; undefined when nowhere. */
export interface PositionLookup {
  locate(path: string): SourcePosition | undefined;
}

export type PathSegment = string | number;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/u;

/** Parses the issue-path syntax of `core/issues.ts` (`a.b["c.d"][0]`); undefined if malformed. */
export function parseIssuePath(path: string): PathSegment[] | undefined {
  const out: PathSegment[] = [];
  let rest = path;
  const lead = IDENT.exec(rest);
  if (lead !== null) {
    out.push(lead[0]);
    rest = rest.slice(lead[0].length);
  }
  while (rest.length > 0) {
    if (rest.startsWith(".")) {
      const m = IDENT.exec(rest.slice(1));
      if (m === null) return undefined;
      out.push(m[0]);
      rest = rest.slice(1 + m[0].length);
      continue;
    }
    const index = /^\[(\d+)\]/u.exec(rest);
    if (index !== null) {
      out.push(Number(index[1]));
      rest = rest.slice(index[0].length);
      continue;
    }
    const key = /^\["((?:[^"\\]|\\.)*)"\]/u.exec(rest);
    if (key === null) return undefined;
    out.push(JSON.parse(`"${key[1] ?? ""}"`) as string);
    rest = rest.slice(key[0].length);
  }
  return out;
}

function child(doc: Document, node: unknown, seg: PathSegment): { node: unknown; start: number } | undefined {
  const target = isAlias(node) ? node.resolve(doc) : node;
  if (isMap(target)) {
    for (const pair of target.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (String(key) !== String(seg)) continue;
      const keyRange = isScalar(pair.key) ? pair.key.range : undefined;
      const valueRange = (pair.value as Node | null)?.range;
      const start = keyRange?.[0] ?? valueRange?.[0];
      if (start === undefined) return undefined;
      return { node: pair.value, start };
    }
    return undefined;
  }
  if (isSeq(target) && typeof seg === "number") {
    const item = target.items[seg] as Node | undefined;
    const start = item?.range?.[0];
    return start === undefined ? undefined : { node: item, start };
  }
  return undefined;
}

/** A lookup over one parsed document; positions point at the map key (or the list item). */
export function createPositionLookup(doc: Document, lineCounter: LineCounter): PositionLookup {
  return {
    locate(path: string): SourcePosition | undefined {
      const segments = parseIssuePath(path);
      if (segments === undefined) return undefined;
      let node: unknown = doc.contents;
      let start: number | undefined = segments.length === 0 ? doc.contents?.range?.[0] : undefined;
      // Walk as deep as the document goes: a key that is absent (a default) points at its parent.
      for (const seg of segments) {
        const next = child(doc, node, seg);
        if (next === undefined) break;
        node = next.node;
        start = next.start;
      }
      if (start === undefined) return undefined;
      const pos = lineCounter.linePos(start);
      return { line: pos.line, column: pos.col };
    },
  };
}

/** `path` relative to `prefix`, or undefined when the issue is not under it. */
function relativeTo(path: string, prefix: string): string | undefined {
  if (prefix === "") return path;
  if (path === prefix) return "";
  if (path.startsWith(`${prefix}.`)) return path.slice(prefix.length + 1);
  if (path.startsWith(`${prefix}[`)) return path.slice(prefix.length);
  return undefined;
}

/**
 * Attaches `file`, `line` and `column` to every issue whose path lies under `prefix` (the path the
 * file's root was given, e.g. `config`); others are returned unchanged. An issue about a key the
 * file does not contain gets its nearest written ancestor's position, or only the file name.
 */
export function locateIssues(
  issues: readonly Issue[],
  prefix: string,
  positions: PositionLookup,
  file: string,
): Issue[] {
  return issues.map((issue) => {
    const rel = relativeTo(issue.path, prefix);
    if (rel === undefined) return issue;
    const pos = positions.locate(rel);
    return pos === undefined ? { ...issue, file } : { ...issue, file, line: pos.line, column: pos.column };
  });
}
