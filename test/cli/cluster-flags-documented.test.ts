/**
 * docs/kubernetes.md stays true to the command line. Its "Flags reference" tables list exactly the
 * flags `evictd watch|explain|record --help` prints, per command, each with the help's term
 * (`--node <name>`) and a default column that holds the default the help prints. The evictd
 * commands the document shows, and the arguments of the DaemonSets in deploy/ (the commented-out
 * ones too), use only flags the help knows.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CLI_SKIP, REPO_ROOT, runEvictd } from "./evictd-cli.js";

const COMMANDS = ["watch", "explain", "record"] as const;
type ClusterCommand = (typeof COMMANDS)[number];

const DOC = join(REPO_ROOT, "docs", "kubernetes.md");
const DAEMONSETS = [
  join(REPO_ROOT, "deploy", "daemonset.yaml"),
  join(REPO_ROOT, "deploy", "helm", "evictd", "templates", "daemonset.yaml"),
];

/** One option as `--help` prints it. */
interface HelpOption {
  /** `-o, --output <format>` */
  readonly term: string;
  /** `--output` */
  readonly long: string;
  /** The help's description, its wrapped lines joined. */
  readonly description: string;
}

/**
 * The options of a commander `--help` text: an entry starts with two spaces and a dash, its
 * description goes on in lines indented deeper (commander wraps at 80 columns when not on a
 * terminal); a blank line ends the list.
 */
function helpOptions(help: string): HelpOption[] {
  const lines = help.split("\n");
  const start = lines.indexOf("Options:");
  assert.ok(start >= 0, `no "Options:" line in:\n${help}`);
  const out: { term: string; long: string; description: string }[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") break;
    const entry = /^ {2}((?:-[A-Za-z], )?(--[a-z][a-z0-9-]*)(?: <[^>]+>)?)(?: {2,}(.*))?$/.exec(line);
    if (entry !== null) {
      out.push({ term: entry[1] ?? "", long: entry[2] ?? "", description: entry[3] ?? "" });
      continue;
    }
    const last = out.at(-1);
    assert.ok(/^ {3,}\S/.test(line) && last !== undefined, `unexpected help line ${JSON.stringify(line)}`);
    last.description = `${last.description} ${line.trim()}`.trim();
  }
  return out;
}

/** The default a description ends with: `"10s"` (quoted, a value) or `false`; undefined if none. */
function helpDefault(description: string): string | boolean | undefined {
  const quoted = /\(default: ("(?:[^"\\]|\\.)*")\)$/.exec(description);
  if (quoted !== null) return JSON.parse(quoted[1] ?? '""') as string;
  if (/\(default: false\)$/.test(description)) return false;
  return undefined;
}

/** One row of a flags table: the flag cell without its backticks, the commands, the default cell. */
interface DocRow {
  readonly term: string;
  readonly long: string;
  readonly commands: readonly string[];
  readonly defaultCell: string;
  readonly line: number;
}

/** The rows of every table in the "## Flags reference" section, up to the next `## ` heading. */
function documentedFlags(doc: string): DocRow[] {
  const lines = doc.split("\n");
  const start = lines.indexOf("## Flags reference");
  assert.ok(start >= 0, `${DOC}: no "## Flags reference" section`);
  const rows: DocRow[] = [];
  for (let i = start + 1; i < lines.length && !/^## /.test(lines[i] ?? ""); i++) {
    const line = lines[i] ?? "";
    if (!line.startsWith("|")) continue;
    const cells = line
      .slice(1, line.lastIndexOf("|"))
      .split("|")
      .map((c) => c.trim());
    assert.equal(cells.length, 5, `${DOC}:${i + 1}: a flags row has 5 cells, got ${cells.length}: ${line}`);
    const [flag = "", commands = "", defaultCell = ""] = cells;
    if (flag === "flag" || /^-+$/.test(flag)) continue;
    const term = /^`([^`]+)`$/.exec(flag)?.[1];
    const long = term !== undefined ? /(--[a-z][a-z0-9-]*)/.exec(term)?.[1] : undefined;
    assert.ok(
      term !== undefined && long !== undefined,
      `${DOC}:${i + 1}: the flag cell is one \`--flag\`: ${flag}`,
    );
    rows.push({ term, long, commands: commands.split(",").map((c) => c.trim()), defaultCell, line: i + 1 });
  }
  return rows;
}

/** Each `--flag` of the `evictd COMMAND …` lines of the document's shell blocks (continuations joined). */
function documentedInvocations(doc: string): { command: string; flags: string[]; text: string }[] {
  const out: { command: string; flags: string[]; text: string }[] = [];
  const joined = doc.replace(/\\\n\s*/g, " ");
  for (const m of joined.matchAll(/^\s*evictd ([a-z-]+)\b([^\n#]*)/gm)) {
    const flags = [...(m[2] ?? "").matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/g)].map((f) => f[1] ?? "");
    out.push({ command: m[1] ?? "", flags, text: m[0].trim() });
  }
  return out;
}

describe("the help parser", () => {
  test("joins wrapped descriptions and reads quoted and boolean defaults", () => {
    const help = [
      "Usage: evictd watch [options]",
      "",
      "Options:",
      "  --node <name>          the Kubernetes node",
      "  --cgroupfs <dir>       with --stats cgroups: where the host's cgroup",
      "                         filesystem is mounted (default:",
      '                         "/sys/fs/cgroup")',
      "  --enforce              evict (default: false)",
      '  -o, --output <format>  table | json (default: "table")',
      "  -h, --help             display help for command",
      "",
    ].join("\n");
    const options = helpOptions(help);
    assert.deepEqual(
      options.map((o) => [o.term, o.long, helpDefault(o.description)]),
      [
        ["--node <name>", "--node", undefined],
        ["--cgroupfs <dir>", "--cgroupfs", "/sys/fs/cgroup"],
        ["--enforce", "--enforce", false],
        ["-o, --output <format>", "--output", "table"],
        ["-h, --help", "--help", undefined],
      ],
    );
  });

  test("the flags table reader refuses a row with a stray cell", () => {
    const doc =
      "## Flags reference\n\n| flag | commands | default | what | when |\n| `--a` | watch | x | y | z | w |\n";
    assert.throws(() => documentedFlags(doc), /5 cells/);
  });
});

describe("docs/kubernetes.md's flags reference against --help", { skip: CLI_SKIP }, () => {
  const help = new Map<ClusterCommand, HelpOption[]>();
  for (const command of COMMANDS) {
    const r = runEvictd([command, "--help"]);
    assert.equal(r.status, 0, `evictd ${command} --help: exit ${r.status}\n${r.stderr}`);
    help.set(
      command,
      helpOptions(r.stdout).filter((o) => o.long !== "--help"),
    );
  }
  const doc = readFileSync(DOC, "utf8");
  const rows = documentedFlags(doc);

  test("watch's help has the in-node flags (the parser read the whole list)", () => {
    const longs = (help.get("watch") ?? []).map((o) => o.long);
    for (const flag of ["--node", "--stats", "--node-cgroup", "--enforce", "--full-summaries"])
      assert.ok(longs.includes(flag), `evictd watch --help lists ${flag}: ${longs.join(" ")}`);
  });

  test("each row names known commands, and no command's flag twice", () => {
    const seen = new Set<string>();
    for (const row of rows)
      for (const command of row.commands) {
        assert.ok(
          (COMMANDS as readonly string[]).includes(command),
          `${DOC}:${row.line}: unknown command ${JSON.stringify(command)}`,
        );
        const key = `${command} ${row.long}`;
        assert.ok(!seen.has(key), `${DOC}:${row.line}: ${key} documented twice`);
        seen.add(key);
      }
  });

  for (const command of COMMANDS)
    test(`every flag of evictd ${command} --help is documented, with its term and default, and no other`, () => {
      const options = help.get(command) ?? [];
      const documented = rows.filter((r) => r.commands.includes(command));
      assert.deepEqual(
        documented.map((r) => r.long).sort(),
        options.map((o) => o.long).sort(),
        `${DOC} "Flags reference": the ${command} flags against evictd ${command} --help`,
      );
      for (const option of options) {
        const row = documented.find((r) => r.long === option.long);
        assert.ok(row !== undefined);
        assert.equal(row.term, option.term, `${DOC}:${row.line}: the term --help prints for ${command}`);
        const value = helpDefault(option.description);
        if (typeof value === "string")
          assert.ok(
            row.defaultCell.includes(`\`${value}\``),
            `${DOC}:${row.line}: ${command} ${option.long} defaults to ${JSON.stringify(value)}; the default cell says ${JSON.stringify(row.defaultCell)}`,
          );
        else if (value === false)
          assert.match(
            row.defaultCell,
            /^off\b/,
            `${DOC}:${row.line}: ${command} ${option.long} is off by default`,
          );
      }
    });

  test("the document's evictd commands use only flags their command has", () => {
    const invocations = documentedInvocations(doc).filter((i) =>
      (COMMANDS as readonly string[]).includes(i.command),
    );
    assert.ok(
      invocations.some((i) => i.command === "watch" && i.flags.includes("--node-cgroup")),
      "the parent-cgroup example runs evictd watch with --node-cgroup",
    );
    for (const i of invocations) {
      const known = new Set((help.get(i.command as ClusterCommand) ?? []).map((o) => o.long));
      for (const flag of i.flags)
        assert.ok(known.has(flag), `${DOC}: ${i.text}: evictd ${i.command} has no ${flag}`);
    }
  });

  test("the DaemonSets' watch arguments, commented-out ones too, are watch flags", () => {
    const known = new Set((help.get("watch") ?? []).map((o) => o.long));
    for (const file of DAEMONSETS) {
      const flags = [...readFileSync(file, "utf8").matchAll(/^\s*(?:# )?- (--[a-z][a-z0-9-]*)\s*$/gm)].map(
        (m) => m[1] ?? "",
      );
      assert.ok(flags.includes("--stats"), `${file}: no watch arguments found`);
      for (const flag of flags) assert.ok(known.has(flag), `${file}: evictd watch has no ${flag}`);
    }
  });
});
