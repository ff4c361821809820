/**
 * The few typed errors that cross layers. Expected outcomes (threshold not met, pod refused,
 * admission rejected) are values, not errors; these are for input that cannot be used and for
 * bugs. The CLI's single error boundary maps them to exit codes.
 */
import type { Issue } from "./core/issues.js";

/** Input that cannot be used: exit code 2, one line per issue on stderr. */
export class InputError extends Error {
  readonly code = "input";
  readonly issues: readonly Issue[];
  constructor(issues: readonly Issue[]) {
    super(`${issues.length} problem(s) in the input`);
    this.name = "InputError";
    this.issues = issues;
  }
}

/**
 * Exit codes shared by every command: 1 a bug, 2 unusable input, 3 the environment refused (a
 * cluster unreachable, credentials or permissions refused); 4 `evictd compare`'s result is complete
 * but some of its cells failed (each is named in it).
 */
export const EXIT = { ok: 0, internal: 1, input: 2, environment: 3, cellsFailed: 4 } as const;

/** Options of an {@link AdapterError}: the underlying failure and a hint for the operator. */
export interface AdapterErrorOptions {
  /** The error that caused this one (an errno exception, a parse failure...). */
  readonly cause?: unknown;
  /** What the operator can do about it, in one sentence ("run as root", "mount the pids controller"). */
  readonly hint?: string;
}

/**
 * A failure at the boundary with the operating system. `code` is a stable, kebab-case identifier
 * callers branch on (e.g. `cgroup-busy`); `message` names the file or resource and says why.
 * Adapters never throw bare `Error`s: the daemon's single error boundary maps these to log lines
 * and exit codes.
 */
export class AdapterError extends Error {
  readonly code: string;
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: AdapterErrorOptions = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.name = "AdapterError";
    this.code = code;
    this.hint = options.hint;
  }
}

/** The errno code (`ENOENT`, `EACCES`...) of a Node system error, or undefined for anything else. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = error.code;
  return typeof code === "string" ? code : undefined;
}
