/**
 * Problems found while reading input. Parsers collect every issue instead of stopping at the first
 * one; frontends render them as `path: message` lines (with line:column when the input was a file).
 */

export type IssueSeverity = "error" | "warning";

export interface Issue {
  readonly severity: IssueSeverity;
  /** Where the problem is, as a path into the input: `config.evictionHard["memory.available"]`. */
  readonly path: string;
  /** What is wrong and what is expected; names the offending value. */
  readonly message: string;
  /** A short machine-readable kind, e.g. `unknown-field`, `invalid-quantity`. */
  readonly code: string;
  /** 1-based position in the source file, filled in by the file readers. */
  readonly line?: number;
  readonly column?: number;
  readonly file?: string;
}

/** An accumulator that rules push into. */
export class IssueList {
  readonly items: Issue[] = [];

  error(path: string, code: string, message: string): void {
    this.items.push({ severity: "error", path, code, message });
  }

  warning(path: string, code: string, message: string): void {
    this.items.push({ severity: "warning", path, code, message });
  }

  get hasErrors(): boolean {
    return this.items.some((i) => i.severity === "error");
  }

  get errors(): Issue[] {
    return this.items.filter((i) => i.severity === "error");
  }

  get warnings(): Issue[] {
    return this.items.filter((i) => i.severity === "warning");
  }
}

/** Renders a path segment for a map key: `.name` when it is a plain identifier, else `["key"]`. */
export function pathKey(parent: string, key: string): string {
  const seg = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  return parent === "" ? (seg.startsWith(".") ? seg.slice(1) : seg) : parent + seg;
}

/** Renders a path segment for a list index. */
export function pathIndex(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/** Formats one issue as a single stderr line. */
export function formatIssue(issue: Issue): string {
  const where =
    issue.file !== undefined
      ? `${issue.file}${issue.line !== undefined ? `:${issue.line}:${issue.column ?? 1}` : ""}: `
      : "";
  const prefix = issue.severity === "warning" ? "warning: " : "";
  return `${where}${prefix}${issue.path}: ${issue.message}`;
}
