/**
 * `evictd replay --what-if`, `--config` and `--set` as a user runs them: the what-if records
 * (docs/replay-format.md, "what-if replay"), another configuration in place of the scenario's,
 * settings over either, and every problem of the options reported together before anything is
 * replayed (exit 2, nothing on stdout).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { CLI_SKIP, EXAMPLES, assertInputError, parseJsonl, runEvictd, scratchDir } from "./evictd-cli.js";

const HARD = join(EXAMPLES, "hard-memory-pressure.yaml");

type Threshold = { signal: string; value: string; hard: boolean; derivedFrom?: string };

function hardMemory(config: Record<string, unknown>): string | undefined {
  const t = (config["thresholds"] as Threshold[]).find((x) => x.signal === "memory.available" && x.hard);
  return t?.value;
}

describe("evictd replay --what-if / --config / --set", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("what-if");
  after(() => scratch.cleanup());

  test("--what-if: the config record says so and every step carries what left, what diverged, what was refused", () => {
    const r = runEvictd(["replay", HARD, "--what-if", "-o", "jsonl"]);
    assert.equal(r.status, 0, r.stderr);
    const [config, ...steps] = parseJsonl(r.stdout);
    assert.equal(config?.["whatIf"], true);
    assert.ok(steps.length > 0);
    for (const s of steps)
      assert.deepEqual(Object.keys(s["whatIf"] as object).sort(), ["diverged", "left", "refusedOnArrival"]);
    const open = parseJsonl(runEvictd(["replay", HARD, "-o", "jsonl"]).stdout);
    assert.equal(open[0]?.["whatIf"], undefined, "an open-loop replay's records are unchanged");
    assert.ok(open.slice(1).every((s) => s["whatIf"] === undefined));
  });

  test("--set over the scenario's own configuration, --config in its place, --set over that", () => {
    const set = parseJsonl(
      runEvictd(["replay", HARD, "-o", "jsonl", "--set", "evictionHard.memory.available=1Gi"]).stdout,
    );
    assert.equal(hardMemory(set[0] ?? {}), "1Gi");
    const file = join(scratch.dir, "strict.yaml");
    writeFileSync(
      file,
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: 300Mi\n",
    );
    const fromFile = runEvictd(["replay", HARD, "-o", "jsonl", "--config", file]);
    assert.equal(fromFile.status, 0, fromFile.stderr);
    assert.equal(hardMemory(parseJsonl(fromFile.stdout)[0] ?? {}), "300Mi");
    const both = parseJsonl(
      runEvictd([
        "replay",
        HARD,
        "-o",
        "jsonl",
        "--config",
        file,
        "--set",
        "evictionHard.memory.available=2Gi",
      ]).stdout,
    );
    assert.equal(hardMemory(both[0] ?? {}), "2Gi");
  });

  test("every bad option at once: an unknown field, a map without its key, a bad quantity, a missing file", () => {
    const r = runEvictd([
      "replay",
      HARD,
      "--what-if",
      "--config",
      join(scratch.dir, "missing.yaml"),
      "--set",
      "evictionHrd.memory.available=1Gi",
      "--set",
      "evictionSoft=1Gi",
      "--set",
      "evictionMaxPodGracePeriod=soon",
    ]);
    assertInputError(r, [
      { path: "--set[0] evictionHrd.memory.available=1Gi", mentions: ['"evictionHrd"', "evictionHard"] },
      { path: "--set[1] evictionSoft=1Gi", mentions: ["is a map"] },
      { path: "--set[2] evictionMaxPodGracePeriod=soon", mentions: ['"soon"', "whole number"] },
      { path: "config", mentions: ["missing.yaml"] },
    ]);
    const bad = runEvictd(["replay", HARD, "--set", "evictionHard.memory.available=12Q"]);
    assertInputError(bad, [{ path: "evictionHard.memory.available=12Q", mentions: ['"12Q"'] }]);
  });
});
