/** Text from input files on a terminal: control characters shown as escapes, never obeyed; explain's table. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { NodeExplanation } from "../../app/node-view/explain-node.js";
import { renderExplanation } from "../commands/explain.js";
import { terminalSafe, terminalSafeLines } from "./terminal-text.js";

/** Any character a terminal would act on rather than show. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("terminalSafe", () => {
  test("escapes C0 and C1 controls, DEL, line separators and bidirectional overrides; leaves the rest alone", () => {
    assert.equal(terminalSafe("web\u001b[31mred"), String.raw`web\x1b[31mred`);
    assert.equal(terminalSafe("a\rb\nc\td\u0000"), String.raw`a\x0db\x0ac\x09d\x00`);
    assert.equal(terminalSafe("x\u007f\u009by"), String.raw`x\x7f\x9by`);
    assert.equal(terminalSafe("evil\u202etxt.exe\u2028"), String.raw`evil\u202etxt.exe\u2028`);
    assert.equal(terminalSafe("default/web-1 ─ é ✓ 名前"), "default/web-1 ─ é ✓ 名前");
    assert.equal(terminalSafeLines("one\u001b\ntwo"), "one\\x1b\ntwo");
  });
});

describe("explain's table", () => {
  test("pod names, messages and reasons from the API are printed with their control characters escaped", () => {
    const evil = "default/web\u001b]0;owned\u0007\r";
    const view: NodeExplanation = {
      node: "node\u001b[2J",
      source: "api",
      time: "2025-01-01T00:00:00Z",
      layout: "single",
      kubeletConditions: [],
      conditions: [{ type: "MemoryPressure", status: "True" }],
      signals: [],
      verdict: {
        outcome: "evict",
        actedOn: "memory.available",
        wouldEvict: [{ pod: evil, signal: "memory.available", message: "The node was low\u001b[8m" }],
      },
      ranking: {
        signal: "memory.available",
        next: evil,
        order: [{ place: 1, pod: evil, critical: false, reason: "usage\u009b above" }],
      },
      skippedPods: [{ pod: `${evil}2`, problem: "bad\u001b" }],
    };
    const out = renderExplanation(view);
    assert.doesNotMatch(out, CONTROL);
    assert.ok(out.includes(String.raw`default/web\x1b]0;owned\x07\x0d`), out);
    assert.ok(out.includes(String.raw`node\x1b[2J`));
    assert.ok(out.includes(String.raw`usage\x9b above`));
  });
});
