/**
 * `evictd replay` on JSONL scenarios (docs/replay-format.md, "evictd extension: JSONL scenarios"):
 * a header line, then one step per line, streamed. The same scenario as a document and as JSONL
 * replays to the same bytes; invalid lines are all reported, with their line numbers, and nothing
 * reaches stdout; a long trace is replayed in bounded memory.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, ftruncateSync, openSync, readdirSync, readFileSync, statSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import {
  CLI_SKIP,
  EXAMPLES,
  FIXTURES,
  REPO_ROOT,
  assertInputError,
  assertNoCrash,
  evictedPods,
  parseJsonl,
  runEvictd,
  scratchDir,
  stderrLines,
} from "./evictd-cli.js";

type Json = Record<string, unknown>;

/** JSON with bigints written as bare digits (uint64 counters stay exact). */
function toJson(value: unknown): string {
  const marker = "@@bigint@@";
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === "bigint" ? `${marker}${v.toString()}` : v,
  ).replace(new RegExp(`"${marker}(-?\\d+)"`, "g"), "$1");
}

/**
 * A document scenario (YAML or JSON) as JSONL: the header (every top-level field but `steps`), then
 * one line per step. File references are made absolute, since the JSONL file lives elsewhere.
 */
function toJsonl(file: string, options: { blankLines?: boolean; crlf?: boolean } = {}): string {
  const doc = parseYaml(readFileSync(file, "utf8"), { intAsBigInt: true, merge: true }) as Json;
  const base = dirname(file);
  const absolute = (v: unknown): unknown => (typeof v === "string" ? resolve(base, v) : v);
  const { steps, ...header } = doc;
  if (header["config"] !== undefined) header["config"] = absolute(header["config"]);
  if (header["pods"] !== undefined) header["pods"] = absolute(header["pods"]);
  assert.ok(Array.isArray(steps), `${file}: steps is not a list`);
  const lines = [
    toJson(header),
    ...steps.map((raw) => {
      const step = { ...(raw as Json) };
      for (const key of ["summary", "afterReclaim"])
        if (step[key] !== undefined) step[key] = absolute(step[key]);
      return toJson(step);
    }),
  ];
  const eol = options.crlf === true ? "\r\n" : "\n";
  return (options.blankLines === true ? ["", ...lines.flatMap((l) => [l, "", "  "])] : lines).join(eol) + eol;
}

/** An issue line without its `file:line:column: ` prefix. */
const unlocated = (line: string): string =>
  line.replace(/^.*?(:\d+:\d+)?: (?=(warning: )?[A-Za-z[]|steps)/, "");

describe("evictd replay: JSONL scenarios", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("jsonl");
  after(() => scratch.cleanup());

  const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml"));
  test("there are examples to convert", () => assert.ok(examples.length >= 8));

  for (const name of examples) {
    test(`${name} as JSONL replays to the same bytes as the document`, () => {
      const file = join(EXAMPLES, name);
      const jsonl = scratch.write(name.replace(/\.yaml$/, ".jsonl"), toJsonl(file));
      for (const output of ["jsonl", "table"]) {
        const doc = runEvictd(["replay", file, "--output", output]);
        const streamed = runEvictd(["replay", jsonl, "--output", output]);
        assert.equal(doc.status, 0, doc.stderr);
        assert.equal(streamed.status, 0, streamed.stderr);
        assertNoCrash(streamed);
        assert.equal(streamed.stdout, doc.stdout, `${output} output differs`);
        // The same warnings, located in their own files.
        assert.deepEqual(stderrLines(streamed).map(unlocated).sort(), stderrLines(doc).map(unlocated).sort());
      }
    });
  }

  test("uint64 counters up to 2^64-1 stay exact through JSONL", () => {
    const file = join(FIXTURES, "replay", "uint64-max.json");
    const doc = runEvictd(["replay", file, "--output", "jsonl"]);
    const streamed = runEvictd(["replay", scratch.write("uint64.jsonl", toJsonl(file)), "--output", "jsonl"]);
    assert.equal(doc.status, 0, doc.stderr);
    assert.equal(streamed.stdout, doc.stdout);
    assert.match(streamed.stdout, /18446744073709551615|16Ei/);
  });

  test("JSONL on stdin: recognised by its lines, the same output as the file", () => {
    const text = toJsonl(join(EXAMPLES, "hard-memory-pressure.yaml"));
    const fromFile = runEvictd(["replay", scratch.write("stdin.jsonl", text), "--output", "jsonl"]);
    const fromStdin = runEvictd(["replay", "-", "--output", "jsonl"], { input: text });
    assert.equal(fromStdin.status, 0, fromStdin.stderr);
    assertNoCrash(fromStdin);
    assert.equal(fromStdin.stdout, fromFile.stdout);
    assert.equal(parseJsonl(fromStdin.stdout).length, 1 + 4);
  });

  test("JSONL in a file not named .jsonl is recognised by its lines", () => {
    const text = toJsonl(join(EXAMPLES, "pid-pressure.yaml"));
    const named = runEvictd(["replay", scratch.write("pid.jsonl", text), "--output", "jsonl"]);
    const unnamed = runEvictd(["replay", scratch.write("pid-trace.json", text), "--output", "jsonl"]);
    assert.equal(unnamed.status, 0, unnamed.stderr);
    assert.equal(unnamed.stdout, named.stdout);
  });

  test("blank lines (and CRLF line ends) are ignored", () => {
    const file = join(EXAMPLES, "soft-memory-pressure.yaml");
    const plain = runEvictd(["replay", scratch.write("plain.jsonl", toJsonl(file)), "--output", "jsonl"]);
    const spaced = runEvictd([
      "replay",
      scratch.write("spaced.jsonl", toJsonl(file, { blankLines: true, crlf: true })),
      "--output",
      "jsonl",
    ]);
    assert.equal(spaced.status, 0, spaced.stderr);
    assert.equal(spaced.stdout, plain.stdout);
  });

  describe("invalid JSONL: exit 2, nothing on stdout, every problem at its line", () => {
    const header = toJson({
      start: "2025-01-01T00:00:00Z",
      config: { evictionHard: { "memory.available": "1Gi" }, mergeDefaultEvictionSettings: true },
    });
    const step = (at: string, available = 536870912): string =>
      toJson({
        at,
        summary: { node: { memory: { availableBytes: available, workingSetBytes: 1073741824 } } },
      });

    test("invalid steps 2 and 5 are both reported, with their line numbers", () => {
      const lines = [
        header,
        step("0s"),
        step("10s"),
        '{"at":"20s","summary":{"node":{"memory":{"availableBytes":"lots"}}}}',
        step("30s"),
        step("40s"),
        '{"at":"50 seconds"}',
        step("60s"),
      ];
      const file = scratch.write("two-bad.jsonl", lines.join("\n") + "\n");
      const col = (line: number, token: string): string =>
        `${line}:${(lines[line - 1] ?? "").indexOf(token) + 1}`;
      assertInputError(runEvictd(["replay", file, "--output", "jsonl"]), [
        {
          path: "steps[2].summary.node.memory.availableBytes",
          mentions: ['"lots"'],
          at: col(4, '"availableBytes"'),
        },
        { path: "steps[5].at", mentions: ["50 seconds"], at: col(7, '"at"') },
      ]);
      // The same on stdin, with a table: still nothing on stdout.
      assertInputError(runEvictd(["replay", "-", "--output", "table"], { input: lines.join("\n") }), [
        {
          path: "steps[2].summary.node.memory.availableBytes",
          mentions: ['"lots"'],
          at: col(4, '"availableBytes"'),
        },
        { path: "steps[5].at", mentions: ["50 seconds"], at: col(7, '"at"') },
      ]);
    });

    test("a line that is not an object, and one that is not JSON", () => {
      const file = scratch.write(
        "not-object.jsonl",
        [header, step("0s"), '"10s"', step("20s"), '{"at": "30s",', step("40s")].join("\n"),
      );
      assertInputError(runEvictd(["replay", file, "--output", "jsonl"]), [
        { path: "steps[1]", mentions: ["expected a step mapping", '"10s"'], at: "3:1" },
        { path: "steps[3]", mentions: ["invalid JSON"] },
      ]);
    });

    test("a header holding steps", () => {
      const withSteps = toJson({ ...(JSON.parse(header) as Json), steps: [{ at: "0s" }] });
      const file = scratch.write("header-steps.jsonl", [withSteps, step("10s")].join("\n"));
      assertInputError(runEvictd(["replay", file, "--output", "jsonl"]), [
        { path: "steps", mentions: ["absent or []", "1 step"], at: `1:${withSteps.indexOf('"steps"') + 1}` },
      ]);
    });

    test("steps out of order, across lines", () => {
      const file = scratch.write("order.jsonl", [header, step("10s"), "", step("5s")].join("\n"));
      assertInputError(runEvictd(["replay", file, "--output", "jsonl"]), [
        { path: "steps[1].at", mentions: ["strictly increasing", "5s"], at: "4:2" },
      ]);
    });

    test("an empty .jsonl file", () => {
      assertInputError(runEvictd(["replay", scratch.write("empty.jsonl", "\n\n"), "--output", "jsonl"]), [
        { path: "scenario", mentions: ["empty"] },
      ]);
    });
  });

  test("a document too large for one string: told to write it as JSONL", () => {
    // Sparse: 2 GiB and more, no disk space used; Node will not read it into one buffer.
    const file = join(scratch.dir, "huge.json");
    const fd = openSync(file, "w");
    try {
      ftruncateSync(fd, 2 ** 31 + 4096);
    } finally {
      closeSync(fd);
    }
    assertInputError(runEvictd(["replay", file, "--output", "jsonl"]), [
      {
        path: "scenario",
        mentions: ["too large to read as one document (2147 MB)", "write it as JSONL (one step per line)"],
      },
    ]);
  });

  describe("memory", () => {
    const STEPS = 20_000;
    const PODS = 5;
    /** Maximum resident set size, in MiB, that the 20,000-step trace must replay within. */
    const BOUND_MIB = 200;

    /** A small recorded trace: five pods, a Summary every 10 s, memory slowly going down and up. */
    function writeTrace(file: string, form: "jsonl" | "json"): void {
      const pods = Array.from({ length: PODS }, (_, i) => ({
        metadata: { name: `app-${i}`, namespace: "default", uid: `uid-${i}` },
        spec: { containers: [{ name: "app", resources: { requests: { memory: "256Mi" } } }] },
      }));
      const header = {
        start: "2025-01-01T00:00:00Z",
        config: { evictionHard: { "memory.available": "500Mi" }, mergeDefaultEvictionSettings: true },
        node: { status: { capacity: { memory: "16Gi" } } },
        pods,
      };
      const gi = 2 ** 30;
      const mi = 2 ** 20;
      const stepOf = (i: number): Json => {
        const fs = {
          availableBytes: 50 * gi,
          capacityBytes: 100 * gi,
          usedBytes: 40 * gi,
          inodesFree: 6_000_000,
          inodes: 6_553_600,
          inodesUsed: 553_600,
        };
        const ws = (j: number): number => (300 + 10 * j + (i % 50)) * mi;
        return {
          at: `${i * 10}s`,
          summary: {
            node: {
              memory: { availableBytes: 4 * gi - (i % 800) * 5 * mi, workingSetBytes: 12 * gi },
              fs,
              runtime: { imageFs: fs },
              rlimit: { maxpid: 4_194_304, curproc: 500 },
            },
            pods: pods.map((p, j) => ({
              podRef: { name: p.metadata.name, namespace: "default", uid: p.metadata.uid },
              memory: { workingSetBytes: ws(j), usageBytes: ws(j) + 20 * mi },
              cpu: { usageNanoCores: 123_456_789 + j, usageCoreNanoSeconds: 9_876_543_210_123 + i },
              network: {
                name: "eth0",
                rxBytes: 123_456_789 + i,
                txBytes: 987_654_321 + i,
                interfaces: [{ name: "eth0", rxBytes: 123_456_789 + i, txBytes: 987_654_321 + i }],
              },
              "ephemeral-storage": { usedBytes: (j + 1) * mi, inodesUsed: 100 },
              containers: [
                {
                  name: "app",
                  memory: { workingSetBytes: ws(j) },
                  rootfs: { usedBytes: 4096, inodesUsed: 10 },
                  logs: { usedBytes: 1024, inodesUsed: 1 },
                },
              ],
            })),
          },
        };
      };
      const fd = openSync(file, "w");
      try {
        let batch: string[] = [];
        const flush = (): void => {
          writeSync(fd, batch.join(""));
          batch = [];
        };
        if (form === "jsonl") batch.push(toJson(header) + "\n");
        else batch.push(toJson(header).slice(0, -1) + ',"steps":[');
        for (let i = 0; i < STEPS; i++) {
          batch.push(form === "jsonl" ? toJson(stepOf(i)) + "\n" : (i === 0 ? "" : ",") + toJson(stepOf(i)));
          if (batch.length >= 1000) flush();
        }
        batch.push(form === "jsonl" ? "" : "]}\n");
        flush();
      } finally {
        closeSync(fd);
      }
    }

    /** Replays `file` in a child process, stdout to `out`; returns its peak RSS in MiB. */
    function peakRss(file: string, out: string): number {
      const report = `data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss-kib="+process.resourceUsage().maxRSS+"\\n"))`;
      const fd = openSync(out, "w");
      try {
        const r = spawnSync(
          process.execPath,
          ["--import", report, join(REPO_ROOT, "bin", "evictd.js"), "replay", file, "--output", "jsonl"],
          {
            stdio: ["ignore", fd, "pipe"],
            encoding: "utf8",
            timeout: 60_000,
          },
        );
        assert.equal(r.status, 0, r.stderr);
        const kib = /maxrss-kib=(\d+)/.exec(r.stderr)?.[1];
        assert.ok(kib !== undefined, `no maxrss report:\n${r.stderr}`);
        return Number(kib) / 1024;
      } finally {
        closeSync(fd);
      }
    }

    test(`a ${STEPS}-step trace streams in under ${BOUND_MIB} MiB; as one document it would need more`, () => {
      const jsonl = join(scratch.dir, "long.jsonl");
      const json = join(scratch.dir, "long.json");
      writeTrace(jsonl, "jsonl");
      writeTrace(json, "json");
      const streamedOut = join(scratch.dir, "long-jsonl.out");
      const documentOut = join(scratch.dir, "long-json.out");
      const streamed = peakRss(jsonl, streamedOut);
      const document = peakRss(json, documentOut);
      const sizeMib = statSync(jsonl).size / 2 ** 20;
      assert.ok(
        streamed < BOUND_MIB,
        `JSONL replay of ${sizeMib.toFixed(0)} MiB used ${streamed.toFixed(0)} MiB`,
      );
      // The control: the same trace read whole does not fit, so the bound says something.
      assert.ok(
        document > BOUND_MIB,
        `the document form used only ${document.toFixed(0)} MiB: make the trace longer`,
      );
      const output = readFileSync(streamedOut, "utf8");
      assert.equal(output, readFileSync(documentOut, "utf8"), "the same decisions either way");
      const records = parseJsonl(output);
      assert.equal(records.length, 1 + STEPS);
      assert.ok(
        records.slice(1).some((s) => evictedPods(s).length > 0),
        "the trace evicts somewhere",
      );
    });
  });
});
