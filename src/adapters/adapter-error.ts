/** The one error type adapters throw: an operation on the outside world (files, cgroups, processes) failed. */

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
