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
 * cluster unreachable, credentials or permissions refused).
 */
export const EXIT = { ok: 0, internal: 1, input: 2, environment: 3 } as const;
