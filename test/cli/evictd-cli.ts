/**
 * Shared harness for the end-to-end CLI suites: spawns the built `bin/evictd.js` as a user would,
 * and checks the exit contract of docs/replay-format.md (exit 2: nothing on stdout, one stderr line
 * per problem, never a stack trace).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, REAL_DATA } from "../support/repo-paths.js";

export { REPO_ROOT };
/** Fixtures stay in the source tree (tsc does not copy them to dist/). */
export const FIXTURES = join(REPO_ROOT, "test", "fixtures");
/** The real-world data set (test/fixtures/real-data, sources in its SOURCES.md). */
export const DATA = REAL_DATA;
export const EXAMPLES = join(REPO_ROOT, "examples");

/** Why the e2e suites are skipped, or false when the binary is built and can run. */
export const CLI_SKIP: string | false = existsSync(join(REPO_ROOT, "dist", "src", "cli", "main.js"))
  ? false
  : "evictd is not built (dist/src/cli/main.js missing): run `npm run build` first";

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Bytes or text piped to stdin (for `replay -`). */
  readonly input?: string | Buffer;
  readonly cwd?: string;
}

function spawnEvictd(cwd: string, shim: string, args: readonly string[], options: RunOptions): CliResult {
  const r = spawnSync(process.execPath, [shim, ...args], {
    cwd,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  if (r.error !== undefined) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `node bin/evictd.js ...args` from the repository root, as `npm test` does. */
export function runEvictd(args: readonly string[], options: RunOptions = {}): CliResult {
  return spawnEvictd(options.cwd ?? REPO_ROOT, "bin/evictd.js", args, options);
}

/** Runs `evictd` from any directory (absolute path to the shim), e.g. to resolve paths on stdin. */
export function runEvictdIn(cwd: string, args: readonly string[], options: RunOptions = {}): CliResult {
  return spawnEvictd(cwd, join(REPO_ROOT, "bin", "evictd.js"), args, options);
}

/** stderr split into lines, without the empty tail. */
export function stderrLines(r: CliResult): string[] {
  return r.stderr.split("\n").filter((l) => l !== "");
}

/** A warning line: `[file[:line:col]: ]warning: path: message`. */
export function isWarningLine(line: string): boolean {
  return /(?:^|: )warning: /.test(line);
}

/** Asserts the process never leaked an internal failure: no stack frames, no JS error names. */
export function assertNoCrash(r: CliResult): void {
  assert.doesNotMatch(r.stderr, /^\s+at /m, `stack frame on stderr:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\b[A-Za-z]*Error:/, `a JS error name on stderr:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /internal error/i, `internal error on stderr:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /node:internal|ERR_[A-Z_]+/, `node internals on stderr:\n${r.stderr}`);
}

/** One problem the CLI must report: on one line, the field path and the offending value. */
export interface ExpectedProblem {
  /** The field path as rendered, e.g. `config.evictionHard["memory.available"]`, `steps[1].at`. */
  readonly path: string;
  /** Texts that must appear on the same line (the offending value, a key word of the reason). */
  readonly mentions: readonly string[];
  /** `line:column` that must prefix the path (`file:L:C: path: ...`), when the input has positions. */
  readonly at?: string;
}

/**
 * Asserts the invalid-input contract (exit 2, empty stdout, no crash) and that each expected
 * problem is on its own line. With `exact`, the error lines (warnings aside) are exactly one per
 * expected problem: nothing missing, nothing derived or duplicated. Returns the error lines.
 */
export function assertInputError(r: CliResult, problems: readonly ExpectedProblem[], exact = true): string[] {
  const context = `exit ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
  assert.equal(r.status, 2, `expected exit 2 for invalid input\n${context}`);
  assert.equal(r.stdout, "", `nothing may be printed on stdout for invalid input\n${context}`);
  assertNoCrash(r);
  const errors = stderrLines(r).filter((l) => !isWarningLine(l));
  assert.ok(errors.length > 0, `no error line on stderr\n${context}`);
  const used = new Set<number>();
  for (const p of problems) {
    const index = errors.findIndex(
      (line, i) =>
        !used.has(i) &&
        (line.startsWith(`${p.path}: `) || line.includes(`: ${p.path}: `)) &&
        p.mentions.every((m) => line.includes(m)) &&
        (p.at === undefined || line.includes(`:${p.at}: ${p.path}: `)),
    );
    assert.ok(
      index >= 0,
      `no stderr line names ${p.path}${p.at !== undefined ? ` at ${p.at}` : ""} with ${JSON.stringify(p.mentions)}\n${context}`,
    );
    used.add(index);
  }
  if (exact) {
    assert.equal(
      errors.length,
      problems.length,
      `expected exactly ${problems.length} error line(s), one per problem\n${context}`,
    );
  }
  return errors;
}

/** Parses jsonl stdout: every line one JSON object, the output ending with a newline. */
export function parseJsonl(stdout: string): Record<string, unknown>[] {
  assert.ok(stdout.endsWith("\n"), "jsonl output must end with a newline");
  return stdout
    .slice(0, -1)
    .split("\n")
    .map((line, i) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        assert.fail(`stdout line ${i + 1} is not JSON (${String(e)}): ${line.slice(0, 200)}`);
      }
      assert.ok(
        typeof value === "object" && value !== null && !Array.isArray(value),
        `line ${i + 1} is not an object`,
      );
      return value as Record<string, unknown>;
    });
}

/** Runs a replay that must succeed with jsonl output; returns the records and stderr lines. */
export function replayJsonl(
  scenario: string,
  options: RunOptions = {},
): { config: Record<string, unknown>; steps: Record<string, unknown>[]; stderr: string[] } {
  const r = runEvictd(["replay", scenario, "--output", "jsonl"], options);
  assert.equal(r.status, 0, `replay ${scenario} failed with exit ${r.status}:\n${r.stderr}`);
  assertNoCrash(r);
  const records = parseJsonl(r.stdout);
  const [config, ...steps] = records;
  assert.ok(config !== undefined, "no config record");
  assert.equal(config["type"], "config");
  for (const s of steps) assert.equal(s["type"], "step");
  return { config, steps, stderr: stderrLines(r) };
}

/** A scratch directory removed by the returned cleanup function. */
export function scratchDir(prefix: string): {
  dir: string;
  write: (name: string, content: string | Buffer) => string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), `evictd-${prefix}-`));
  return {
    dir,
    write: (name, content) => {
      const file = join(dir, name);
      writeFileSync(file, content);
      return file;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The `pod` keys of a step record's evictions. */
export function evictedPods(step: Record<string, unknown>): string[] {
  const evictions = step["evictions"];
  assert.ok(Array.isArray(evictions), "step.evictions must be a list");
  return evictions.map((e: unknown) => {
    assert.ok(typeof e === "object" && e !== null, "eviction must be an object");
    const pod = (e as Record<string, unknown>)["pod"];
    assert.equal(typeof pod, "string");
    return pod as string;
  });
}

/**
 * JSON.parse that keeps every integer exact: integers too long for a double (16+ digits) are
 * turned into strings before parsing, so callers read them with BigInt(String(value)).
 */
export function parseJsonKeepingBigIntegers(text: string): unknown {
  return JSON.parse(text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
}

/** An exact unsigned integer read from parseJsonKeepingBigIntegers output (number or digit string). */
export function exactInteger(value: unknown): bigint {
  if (typeof value === "number") {
    assert.ok(Number.isSafeInteger(value), `not an exact integer: ${value}`);
    return BigInt(value);
  }
  assert.ok(typeof value === "string" && /^-?\d+$/.test(value), `not an integer: ${String(value)}`);
  return BigInt(value);
}

/**
 * Reads a canonical quantity as printed by evictd (`7128688Ki`, `45k`, `18446744073709551615`,
 * `1e21`) back into an exact integer; the suffix tables are kubelet-semantics 1.5.
 */
export function quantityToInteger(text: string): bigint {
  const m = /^(\d+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|e(\d+))?$/.exec(text);
  assert.ok(m !== null, `not an integral canonical quantity: ${text}`);
  const digits = BigInt(m[1] ?? "");
  const suffix = m[2];
  if (suffix === undefined) return digits;
  if (m[3] !== undefined) return digits * 10n ** BigInt(m[3]);
  const binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].indexOf(suffix);
  if (binary >= 0) return digits * 1024n ** BigInt(binary + 1);
  const decimal = ["k", "M", "G", "T", "P", "E"].indexOf(suffix);
  return digits * 1000n ** BigInt(decimal + 1);
}
