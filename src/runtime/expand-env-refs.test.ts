/** `$(VAR)` expansion as the kubelet does it for command, args and env values. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expandEnvRefs } from "./expand-env-refs.js";

const vars: Record<string, string> = { A: "alpha", EMPTY: "", B: "$(A)" };
const lookup = (name: string): string | undefined => (Object.hasOwn(vars, name) ? vars[name] : undefined);

const cases: [string, string][] = [
  ["plain", "plain"],
  ["$(A)", "alpha"],
  ["x-$(A)-y", "x-alpha-y"],
  ["$(A)$(A)", "alphaalpha"],
  ["$(EMPTY)!", "!"],
  ["$(MISSING)", "$(MISSING)"],
  ["$$(A)", "$(A)"],
  ["$$", "$"],
  ["$HOME", "$HOME"],
  ["cost $5", "cost $5"],
  ["trailing $", "trailing $"],
  ["$(A", "$(A"],
  ["$()", "$()"],
  ["$(B)", "$(A)"],
];

describe("expandEnvRefs", () => {
  for (const [input, want] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(want)}`, () =>
      assert.equal(expandEnvRefs(input, lookup), want));
  }
});
