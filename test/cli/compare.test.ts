/**
 * `evictd compare` as an operator runs it, on a small fleet of generated traces (three nodes through
 * a memory episode, one of them brotli-compressed as `evictd record` writes it): the comparison is
 * the same with one worker or two; plan → shards → merge gives exactly the single-machine result,
 * reruns skip shards already done, a trace changed since the plan fails its shards alone (exit 2,
 * the reason in the merge); a trace invalid part-way fails its own cells and nothing else; every
 * bad option and input is reported at once before any replay; Katib lines and the HTML page.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createTraceFile } from "../../src/formats/scenario/compressed-scenario.js";
import { generateTrace } from "../../tools/trace-generator/generate-trace.js";
import {
  CLI_SKIP,
  assertInputError,
  assertNoCrash,
  runEvictdIn,
  scratchDir,
  stderrLines,
} from "./evictd-cli.js";

const SWEEP = ["--base", "recorded", "--sweep", "evictionHard.memory.available=100Mi,500Mi,1Gi,2Gi"];

type Json = Record<string, unknown>;

describe("evictd compare", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("compare");
  const fleet = join(scratch.dir, "fleet");
  after(() => scratch.cleanup());

  before(async () => {
    for (const seed of [1, 2, 3]) {
      // 110 pods from just before the node's first memory episode, BestEffort replacements held
      // back under MemoryPressure as the kubelet's admission does; lean per-pod figures.
      const { text } = generateTrace({
        steps: 360,
        fromStep: 560,
        seed,
        pods: 110,
        richness: "recorded",
        format: "jsonl",
        admission: "kubelet",
        node: `node-${seed}`,
      });
      if (seed === 3) {
        const writer = createTraceFile(join(scratch.dir, "node-3.jsonl.br"));
        writer.write(text);
        await writer.close();
      } else scratch.write(`node-${seed}.jsonl`, text);
    }
    // The fleet directory: the three traces (and a file that is no trace, which is not taken).
    mkdirSync(fleet);
    for (const name of ["node-1.jsonl", "node-2.jsonl", "node-3.jsonl.br"])
      writeFileSync(join(fleet, name), readFileSync(join(scratch.dir, name)));
    writeFileSync(join(fleet, "notes.json"), "{}");
  });

  const run = (args: readonly string[], env: Record<string, string> = {}) => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      return runEvictdIn(scratch.dir, args);
    } finally {
      for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
    }
  };

  test("the same comparison with one worker or two; every cell, one row per configuration, a recommendation", () => {
    const one = run(["compare", "fleet", ...SWEEP, "-o", "json", "--workers", "1"]);
    assert.equal(one.status, 0, one.stderr);
    const two = run(["compare", "fleet", ...SWEEP, "-o", "json", "--workers", "2"]);
    assert.equal(two.status, 0, two.stderr);
    assert.equal(one.stdout, two.stdout, "the result does not depend on the number of workers");
    const c = JSON.parse(one.stdout) as Json & { configs: Json[]; cells: Json[]; traces: string[] };
    assert.deepEqual(c.traces, ["fleet/node-1.jsonl", "fleet/node-2.jsonl", "fleet/node-3.jsonl.br"]);
    assert.equal(c.cells.length, 12);
    assert.ok(c.cells.every((cell) => cell["ok"] === true));
    assert.deepEqual(
      c.configs.map((r) => r["config"]),
      ["100Mi", "500Mi", "1Gi", "2Gi"].map((v) => `evictionHard.memory.available=${v}`),
    );
    assert.equal(c["whatIf"], true);
    const rec = c["recommendation"] as Json;
    assert.ok(typeof rec["config"] === "string" && typeof rec["reason"] === "string");
    // The recorded configuration's 500Mi evicts what the recording did; a stricter threshold never evicts fewer pods here.
    const evictions = c.configs.map((r) => r["evictions"] as number);
    assert.ok((evictions[1] ?? 0) > 0, JSON.stringify(evictions));
    const table = run(["compare", "fleet", ...SWEEP]);
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /^3 traces × 4 configurations, what-if$/m);
    assert.match(table.stdout, /^recommended: evictionHard\.memory\.available=/m);
  });

  test("plan → shards → merge, a shard per cell or per trace: exactly the single-machine comparison; a shard already done is skipped", () => {
    const pool = run(["compare", "fleet", ...SWEEP, "-o", "json"]);
    const plan = run(["compare", "plan", "fleet", ...SWEEP, "--out", "plan.json"]);
    assert.equal(plan.status, 0, plan.stderr);
    assert.equal(plan.stdout, "12\n", "the shard count on stdout, for a Job's completions");
    for (let i = 0; i < 12; i++) {
      // As an Indexed Job runs it: the index from the environment.
      const shard = run(["compare", "shard", "plan.json", "--results", "results"], {
        JOB_COMPLETION_INDEX: String(i),
      });
      assert.equal(shard.status, 0, shard.stderr);
    }
    const again = run(["compare", "shard", "plan.json", "--index", "5", "--results", "results"]);
    assert.equal(again.status, 0);
    assert.match(again.stderr, /shard 5: already done/);
    const merged = run(["compare", "merge", "plan.json", "--results", "results", "-o", "json"]);
    assert.equal(merged.status, 0, merged.stderr);
    assert.equal(merged.stdout, pool.stdout);

    // Grouped by trace: a shard per trace, all four configurations in it; the same comparison.
    const byTrace = run(["compare", "plan", "fleet", ...SWEEP, "--group", "trace", "--out", "plan-t.json"]);
    assert.equal(byTrace.stdout, "3\n");
    for (let i = 0; i < 3; i++)
      assert.equal(
        run(["compare", "shard", "plan-t.json", "--index", String(i), "--results", "results-t"]).status,
        0,
      );
    const mergedByTrace = run(["compare", "merge", "plan-t.json", "--results", "results-t", "-o", "json"]);
    assert.equal(mergedByTrace.stdout, pool.stdout);
  });

  test("a trace changed after the plan: its shards fail alone with exit 2, and the merge says why (exit 4)", () => {
    scratch.write("changing.jsonl", readFileSync(join(scratch.dir, "node-1.jsonl")));
    const plan = run([
      "compare",
      "plan",
      "changing.jsonl",
      "node-2.jsonl",
      "--config",
      "none-such-setting.yaml",
    ]);
    assert.equal(plan.status, 2, "a missing config file stops the plan");
    assert.equal(run(["compare", "plan", "changing.jsonl", "node-2.jsonl", "--out", "plan2.json"]).status, 0);
    appendFileSync(join(scratch.dir, "changing.jsonl"), "\n");
    const changed = run(["compare", "shard", "plan2.json", "--index", "0", "--results", "results2"]);
    assert.equal(changed.status, 2, changed.stderr);
    assert.match(changed.stderr, /the trace changed since the plan was made/);
    assert.equal(run(["compare", "shard", "plan2.json", "--index", "1", "--results", "results2"]).status, 0);
    const merged = run(["compare", "merge", "plan2.json", "--results", "results2", "-o", "json"]);
    assert.equal(merged.status, 4, merged.stderr);
    const c = JSON.parse(merged.stdout) as {
      failures: { trace: string; problems: string[] }[];
      cells: Json[];
    };
    assert.deepEqual(
      c.failures.map((f) => f.trace),
      ["changing.jsonl"],
    );
    assert.match(c.failures[0]?.problems[0] ?? "", /changed since the plan/);
    assert.equal(c.cells.filter((x) => x["ok"] === true).length, 1);
    const missing = run(["compare", "merge", "plan2.json", "--results", "nowhere", "-o", "json"]);
    assert.equal(missing.status, 4);
    assert.match(missing.stderr, /merge: 2 of 2 shards have no current result/);
  });

  test("a trace invalid part-way fails its own cells, named with the line; the others are compared", () => {
    const lines = readFileSync(join(scratch.dir, "node-2.jsonl"), "utf8").split("\n");
    lines[200] = '{"at":"bad"}';
    scratch.write("broken.jsonl", lines.join("\n"));
    const r = run(["compare", "node-1.jsonl", "broken.jsonl", ...SWEEP, "-o", "json"]);
    assert.equal(r.status, 4, r.stderr);
    assertNoCrash(r);
    const c = JSON.parse(r.stdout) as {
      failures: { trace: string; config: string; problems: string[] }[];
      cells: Json[];
    };
    assert.equal(c.failures.length, 4);
    assert.ok(c.failures.every((f) => f.trace === "broken.jsonl"));
    assert.match(c.failures[0]?.problems[0] ?? "", /broken\.jsonl:201:\d+: steps\[199\]\.at/);
    assert.equal(c.cells.filter((x) => x["ok"] === true).length, 4);
  });

  test("every bad option and input at once, before any replay: exit 2, nothing on stdout", () => {
    scratch.write(
      "bad-header.jsonl",
      '{"config":{"evictionHard":{"memory.available":"lots"}}}\n{"at":"0s"}\n',
    );
    scratch.write(
      "strict.yaml",
      "kind: KubeletConfiguration\nevictionHard:\n  memory.available: 2Gi\nkubeReserved:\n  memory: much\n",
    );
    const r = run([
      "compare",
      "node-1.jsonl",
      "bad-header.jsonl",
      "missing.jsonl",
      "--config",
      "strict.yaml",
      "--base",
      "recorded",
      "--sweep",
      "evictionHrad.memory.available=1Gi",
      "--objective",
      "cheapest",
      "--workers",
      "0",
    ]);
    assertInputError(
      r,
      [
        { path: "--objective", mentions: ['"cheapest"', "fewest-evictions"] },
        { path: "--workers", mentions: ['"0"'] },
        { path: "--sweep[0] evictionHrad.memory.available=1Gi", mentions: ['"evictionHrad"'] },
        { path: "trace", mentions: ["missing.jsonl", "ENOENT"] },
      ],
      false,
    );
    const katib = run(["compare", "node-1.jsonl", ...SWEEP, "-o", "katib"]);
    assertInputError(katib, [{ path: "--output", mentions: ["katib", "4 configurations"] }]);
    // The config file and the trace header are checked once the options are.
    const inputs = run(["compare", "node-1.jsonl", "bad-header.jsonl", "--config", "strict.yaml"]);
    assertInputError(
      inputs,
      [
        { path: "config.kubeReserved.memory", mentions: ['"much"'] },
        { path: 'config.evictionHard["memory.available"]', mentions: ['"lots"'] },
      ],
      false,
    );
    assert.ok(
      stderrLines(inputs).some((l) => l.startsWith("strict.yaml:5:")),
      inputs.stderr,
    );
  });

  test("Katib: one configuration's figures as name=value lines", () => {
    const r = run([
      "compare",
      "node-1.jsonl",
      "node-2.jsonl",
      "--base",
      "recorded",
      "--set",
      "evictionHard.memory.available=1Gi",
      "-o",
      "katib",
    ]);
    assert.equal(r.status, 0, r.stderr);
    const metrics = new Map(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("=") as [string, string]),
    );
    for (const name of [
      "evictions",
      "oom_risk_steps",
      "memory_available_min_bytes",
      "allocatable_memory_bytes",
      "diverged_pods",
    ])
      assert.ok(Number.isFinite(Number(metrics.get(name))), `${name}=${metrics.get(name)}`);
  });

  test("--html: the comparison page, per-node reports of the worst nodes beside it, each linked", () => {
    const r = run(
      ["compare", "fleet", ...SWEEP, "--html", "out/compare.html"].map((a) =>
        a === "out/compare.html" ? join(scratch.dir, "page.html") : a,
      ),
    );
    assert.equal(r.status, 0, r.stderr);
    const page = readFileSync(join(scratch.dir, "page.html"), "utf8");
    assert.match(page, /<h1>evictd fleet comparison<\/h1>/);
    assert.doesNotMatch(page, /<script/);
    const links = [...page.matchAll(/href="([^"]+)"/g)].map((m) => m[1] ?? "");
    assert.ok(links.length > 0, "some cells link to their reports");
    for (const link of links) {
      const file = join(scratch.dir, decodeURIComponent(link));
      assert.ok(existsSync(file), `${link} exists`);
      assert.match(readFileSync(file, "utf8"), /<h1>evictd replay report<\/h1>/);
    }
    assert.equal(readdirSync(join(scratch.dir, "page-reports")).length, links.length);
    assert.match(
      page,
      /evictd replay fleet\/node-\d\.jsonl(\.br)? --what-if --set evictionHard/,
      "unlinked cells say how to get their report",
    );
  });
});
