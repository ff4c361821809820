/**
 * Files a scenario references (config aside: pods, summaries), each checked and reported once however
 * many steps point at it (a recorded trace may reference one file thousands of times), and read once
 * while it is in use. Problems inside a file are located at file:line:column and collected apart
 * from the scenario's own.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { IssueList, type Issue } from "../../core/issues.js";
import { locateIssues } from "../position-lookup.js";
import { readStructuredFile } from "../structured-file.js";

/** How a file is named in messages: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

export interface ReferencedFile {
  readonly value: unknown;
  /** Whether it was read and passed its check without errors. */
  readonly ok: boolean;
}

/**
 * How many files' contents are kept for reuse. Only whether a file passed its check is remembered
 * for every file; a trace with a summary file per step is streamed without holding them all, and a
 * file referenced again after leaving this window is read again (silently: it was reported once).
 */
const KEEP = 8;

export class ReferencedFiles {
  /** Whether each file read so far passed its check (its problems were reported on that read). */
  private readonly checked = new Map<string, boolean>();
  /** The last few files read, most recent last. */
  private readonly recent = new Map<string, Promise<ReferencedFile>>();
  private readonly baseDir: string;
  private readonly issues: Issue[];

  /**
   * `baseDir`: what relative references resolve against (the scenario's directory); `issues`: where
   * problems found in the files go, in the order the files are first referenced.
   */
  constructor(baseDir: string, issues: Issue[]) {
    this.baseDir = baseDir;
    this.issues = issues;
  }

  /** Reads `ref` and runs `check` on it; `path` is the issue path of the first reference. */
  load(
    ref: string,
    path: string,
    check: (value: unknown, issues: IssueList) => void,
  ): Promise<ReferencedFile> {
    const file = resolve(this.baseDir, ref);
    const kept = this.recent.get(file);
    if (kept !== undefined) {
      this.recent.delete(file);
      this.recent.set(file, kept);
      return kept;
    }
    const known = this.checked.get(file);
    if (known === false) return Promise.resolve({ value: undefined, ok: false });
    const p = this.read(file, path, check, known === undefined);
    this.recent.set(file, p);
    if (this.recent.size > KEEP) this.recent.delete(this.recent.keys().next().value as string);
    return p;
  }

  private async read(
    file: string,
    path: string,
    check: (value: unknown, issues: IssueList) => void,
    first: boolean,
  ): Promise<ReferencedFile> {
    const f = await readStructuredFile(file, path);
    const shown = displayPath(file);
    const local = new IssueList();
    if (f.ok) check(f.value, local);
    const ok = f.ok && !local.hasErrors;
    // Reported on the first read; a file read again is reported again only if it changed for the worse.
    if (first || !ok) {
      if (!f.ok) this.issues.push(...f.issues.map((i) => ({ ...i, file: shown })));
      else {
        this.issues.push(
          ...f.warnings.map((i) => ({ ...i, file: shown })),
          ...locateIssues(local.items, path, f.positions, shown),
        );
      }
    }
    this.checked.set(file, ok);
    return { value: f.ok ? f.value : undefined, ok };
  }
}
