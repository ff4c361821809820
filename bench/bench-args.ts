/**
 * The benchmarks' command lines, checked alike. An unknown or misspelt option is an error: a bench
 * that quietly measured its default node instead of `--pod 110` would publish the wrong figures.
 * Every value is checked and named in its error, the errors of one command line are reported
 * together, and `--help` prints the usage. Splitting the line is node's own `util.parseArgs`
 * (strict); what is here turns its strings into the numbers and choices a bench runs with.
 */
import { parseArgs } from "node:util";

/**
 * The options a bench takes, by name (without the dashes): a value, a flag, or a value that may be
 * left out (`{ bare: "on" }`: `--hog` alone, at the end or before another option, reads as `--hog on`).
 */
export type OptionKinds = Record<string, "string" | "boolean" | { readonly bare: string }>;

type RawValues<K extends OptionKinds> = { [N in keyof K]?: K[N] extends "boolean" ? boolean : string };

/** Exit status for a command line a bench cannot run with (as for a shell builtin's misuse). */
export const USAGE_EXIT = 2;

/** One command line's values, read through checks that note each bad value and go on. */
export class BenchArgs<K extends OptionKinds> {
  readonly errors: string[] = [];
  readonly #values: RawValues<K>;

  constructor(values: RawValues<K>) {
    this.#values = values;
  }

  /** Whether the option was given at all. */
  has(name: keyof K & string): boolean {
    return this.#values[name] !== undefined;
  }

  flag(name: keyof K & string): boolean {
    return this.#values[name] === true;
  }

  string(name: keyof K & string): string | undefined {
    const v = this.#values[name];
    return typeof v === "string" ? v : undefined;
  }

  /** A whole number of at least `min`; `fallback` when absent (or wrong: the error is noted). */
  wholeNumber(name: keyof K & string, fallback: number, min = 0): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const n = wholeNumberOf(raw);
    if (n === undefined || n < min) {
      this.errors.push(`--${name}: a whole number of at least ${min} expected, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return n;
  }

  /** A comma-separated list of whole numbers, each at least `min`. */
  wholeNumbers(name: keyof K & string, fallback: readonly number[], min = 0): number[] {
    const raw = this.string(name);
    if (raw === undefined) return [...fallback];
    const items = raw.split(",");
    const numbers = items.map(wholeNumberOf);
    const bad = items.filter((item, i) => {
      const n = numbers[i];
      return n === undefined || n < min;
    });
    if (bad.length > 0) {
      this.errors.push(
        `--${name}: comma-separated whole numbers of at least ${min} expected, got ${JSON.stringify(raw)} (${bad.map((b) => JSON.stringify(b)).join(", ")})`,
      );
      return [...fallback];
    }
    return numbers as number[];
  }

  /** One of `allowed`. */
  choice<C extends string>(name: keyof K & string, allowed: readonly C[], fallback: C): C {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as C;
    this.errors.push(`--${name}: one of ${allowed.join(", ")} expected, got ${JSON.stringify(raw)}`);
    return fallback;
  }

  /** A comma-separated list of some of `allowed`, none twice. */
  choices<C extends string>(name: keyof K & string, allowed: readonly C[], fallback: readonly C[]): C[] {
    const raw = this.string(name);
    if (raw === undefined) return [...fallback];
    const items = raw.split(",");
    const bad = items.filter((item) => !(allowed as readonly string[]).includes(item));
    if (bad.length > 0 || new Set(items).size !== items.length) {
      this.errors.push(
        `--${name}: a comma-separated list of ${allowed.join(", ")} (each once) expected, got ${JSON.stringify(raw)}`,
      );
      return [...fallback];
    }
    return items as C[];
  }

  /** Notes an error unless `ok` (for checks between options). */
  require(ok: boolean, message: string): void {
    if (!ok) this.errors.push(message);
  }
}

function wholeNumberOf(raw: string): number | undefined {
  if (!/^\d+$/.test(raw.trim())) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Reads a bench's command line: `--help` prints `usage` and exits 0; an unknown option, a missing
 * value or any value `read` finds wrong prints every error and the usage and exits
 * {@link USAGE_EXIT}, before the bench has touched anything.
 */
export function readBenchArgs<K extends OptionKinds, R>(
  argv: readonly string[],
  usage: string,
  kinds: K,
  read: (args: BenchArgs<K>) => R,
): R {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  const result = checkBenchArgs(argv, kinds, read);
  if (!result.ok) {
    for (const e of result.errors) console.error(`error: ${e}`);
    console.error(`\n${usage}`);
    process.exit(USAGE_EXIT);
  }
  return result.value;
}

/** {@link readBenchArgs} without the printing and exiting: the values, or every error. */
export function checkBenchArgs<K extends OptionKinds, R>(
  argv: readonly string[],
  kinds: K,
  read: (args: BenchArgs<K>) => R,
): { ok: true; value: R } | { ok: false; errors: string[] } {
  let values: RawValues<K>;
  try {
    const options = Object.fromEntries(
      Object.entries(kinds).map(([name, kind]) => [name, { type: kind === "boolean" ? kind : "string" }]),
    ) as Record<string, { type: "string" | "boolean" }>;
    values = parseArgs({ args: withBareValues(argv, kinds), options, strict: true, allowPositionals: false })
      .values as RawValues<K>;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // Node's own words go on to tell how to pass a positional argument, which no bench takes.
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    const known = Object.keys(kinds)
      .map((name) => `--${name}`)
      .join(", ");
    return {
      ok: false,
      errors: [unknown === null ? message : `unknown option '${unknown[1]}' (the options: ${known})`],
    };
  }
  const args = new BenchArgs(values);
  const value = read(args);
  return args.errors.length > 0 ? { ok: false, errors: args.errors } : { ok: true, value };
}

/** The command line with each bare option that may go without its value given it (`--hog` → `--hog=on`). */
function withBareValues(argv: readonly string[], kinds: OptionKinds): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const kind = arg.startsWith("--") ? kinds[arg.slice(2)] : undefined;
    const next = argv[i + 1];
    const bare = typeof kind === "object" && (next === undefined || next.startsWith("-"));
    out.push(bare ? `${arg}=${kind.bare}` : arg);
  }
  return out;
}
