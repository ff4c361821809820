// Single-value parsing of thresholds, minimum reclaims and grace periods (ParseThresholdConfig parity).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ThresholdValue } from "../model.js";
import { formatQuantity } from "../quantity.js";
import {
  checkSignal,
  parseGracePeriodValue,
  parseMinimumReclaimValue,
  parseThresholdValue,
} from "./threshold-statement.js";

const REGEX_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** A threshold value as comparable data: quantities printed canonically, percentages as float32. */
function show(v: ThresholdValue | null): unknown {
  if (v === null) return null;
  return v.kind === "quantity"
    ? { quantity: formatQuantity(v.quantity) }
    : { percentage: v.percentage, text: v.text };
}

/** The rendered value, or `{ error, code }` for an expected failure. */
type Want = unknown;

function check<T>(
  got: { ok: true; value: T } | { ok: false; code: string; message: string },
  want: Want,
  render: (v: T) => unknown,
): void {
  if (typeof want === "object" && want !== null && "error" in want) {
    assert.equal(
      got.ok,
      false,
      `expected an error, got ${JSON.stringify(got.ok ? render(got.value) : null)}`,
    );
    if (!got.ok) assert.deepEqual({ error: got.message, code: got.code }, want);
    return;
  }
  assert.equal(got.ok, true, got.ok ? "" : got.message);
  if (got.ok) assert.deepEqual(render(got.value), want);
}

describe("checkSignal", () => {
  const cases: [string, boolean][] = [
    ["memory.available", true],
    ["allocatableMemory.available", true],
    ["containerfs.inodesFree", true],
    ["pid.available", true],
    ["foo.available", false],
    ["swap.available", false],
    ["memory.available ", false],
    ["", false],
  ];
  for (const [key, ok] of cases) {
    test(JSON.stringify(key), () => {
      const got = checkSignal(key);
      if (ok) assert.deepEqual(got, { ok: true, value: key });
      else
        assert.deepEqual(got, {
          ok: false,
          code: "unsupported-signal",
          message: `unsupported eviction signal ${key}`,
        });
    });
  }
});

describe("parseThresholdValue", () => {
  const cases: [string, Want][] = [
    // 0% and 100% disable the threshold: only these exact spellings.
    ["0%", null],
    ["100%", null],
    ["100.0%", { percentage: 1, text: "100.0%" }],
    ["0.0%", { percentage: 0, text: "0.0%" }],
    ["00%", { percentage: 0, text: "00%" }],
    // float32 parse and float32 division.
    ["10%", { percentage: 0.10000000149011612, text: "10%" }],
    ["10%%", { percentage: 0.10000000149011612, text: "10%%" }],
    ["1e1%", { percentage: 0.10000000149011612, text: "1e1%" }],
    ["5%", { percentage: 0.05000000074505806, text: "5%" }],
    ["+5%", { percentage: 0.05000000074505806, text: "+5%" }],
    ["15%", { percentage: 0.15000000596046448, text: "15%" }],
    [".5%", { percentage: 0.004999999888241291, text: ".5%" }],
    [
      "-5%",
      {
        error: "eviction percentage threshold nodefs.available must be >= 0%: -5%",
        code: "percentage-out-of-range",
      },
    ],
    [
      "150%",
      {
        error: "eviction percentage threshold nodefs.available must be <= 100%: 150%",
        code: "percentage-out-of-range",
      },
    ],
    [
      "100.1%",
      {
        error: "eviction percentage threshold nodefs.available must be <= 100%: 100.1%",
        code: "percentage-out-of-range",
      },
    ],
    [
      "Inf%",
      {
        error: "eviction percentage threshold nodefs.available must be <= 100%: Inf%",
        code: "percentage-out-of-range",
      },
    ],
    ["abc%", { error: 'strconv.ParseFloat: parsing "abc": invalid syntax', code: "invalid-percentage" }],
    [" 10%", { error: 'strconv.ParseFloat: parsing " 10": invalid syntax', code: "invalid-percentage" }],
    ["%", { error: 'strconv.ParseFloat: parsing "": invalid syntax', code: "invalid-percentage" }],
    [
      "1e40%",
      { error: 'strconv.ParseFloat: parsing "1e40": value out of range', code: "invalid-percentage" },
    ],
    // Quantities: positive only; canonical form in the message.
    ["1Gi", { quantity: "1Gi" }],
    ["1.5Gi", { quantity: "1536Mi" }],
    ["1024Mi", { quantity: "1Gi" }],
    ["500", { quantity: "500" }],
    [
      "0",
      { error: "eviction threshold nodefs.available must be positive: 0", code: "non-positive-threshold" },
    ],
    [
      "0Mi",
      { error: "eviction threshold nodefs.available must be positive: 0", code: "non-positive-threshold" },
    ],
    [
      "-1Gi",
      { error: "eviction threshold nodefs.available must be positive: -1Gi", code: "non-positive-threshold" },
    ],
    ["1K", { error: `unable to parse quantity's suffix (value "1K")`, code: "invalid-quantity" }],
    ["1mi", { error: `unable to parse quantity's suffix (value "1mi")`, code: "invalid-quantity" }],
    ["1Kb", { error: `${REGEX_ERROR} (value "1Kb")`, code: "invalid-quantity" }],
    ["", { error: `${REGEX_ERROR} (value "")`, code: "invalid-quantity" }],
    ["1 Gi", { error: `${REGEX_ERROR} (value "1 Gi")`, code: "invalid-quantity" }],
  ];
  for (const [value, want] of cases) {
    test(JSON.stringify(value), () => check(parseThresholdValue("nodefs.available", value), want, show));
  }

  test("NaN passes both range checks (upstream quirk)", () => {
    const got = parseThresholdValue("memory.available", "NaN%");
    assert.ok(got.ok && got.value?.kind === "percentage" && Number.isNaN(got.value.percentage));
  });
});

describe("parseMinimumReclaimValue", () => {
  const cases: [string, Want][] = [
    ["5%", { percentage: 0.05000000074505806, text: "5%" }],
    ["150%", { percentage: 1.5, text: "150%" }],
    [
      "0%",
      {
        error: "eviction percentage minimum reclaim memory.available must be positive: 0%",
        code: "non-positive-min-reclaim",
      },
    ],
    [
      "-5%",
      {
        error: "eviction percentage minimum reclaim memory.available must be positive: -5%",
        code: "non-positive-min-reclaim",
      },
    ],
    ["x%", { error: 'strconv.ParseFloat: parsing "x": invalid syntax', code: "invalid-percentage" }],
    ["500Mi", { quantity: "500Mi" }],
    ["0", { quantity: "0" }],
    ["0Mi", { quantity: "0" }],
    [
      "-1Gi",
      {
        error: 'negative eviction minimum reclaim specified for memory.available (value "-1Gi")',
        code: "negative-min-reclaim",
      },
    ],
    ["1K", { error: `unable to parse quantity's suffix (value "1K")`, code: "invalid-quantity" }],
  ];
  for (const [value, want] of cases) {
    test(JSON.stringify(value), () => check(parseMinimumReclaimValue("memory.available", value), want, show));
  }
});

describe("parseGracePeriodValue", () => {
  const cases: [string, Want][] = [
    ["1m30s", 90_000_000_000n],
    ["300ms", 300_000_000n],
    ["2h45m", 9_900_000_000_000n],
    ["0", 0n],
    ["0s", 0n],
    ["30", { error: 'time: missing unit in duration "30"', code: "invalid-duration" }],
    ["1d", { error: 'time: unknown unit "d" in duration "1d"', code: "invalid-duration" }],
    ["", { error: 'time: invalid duration ""', code: "invalid-duration" }],
    [
      "-1s",
      {
        error: "invalid eviction grace period specified: -1s, must be a positive value",
        code: "negative-grace-period",
      },
    ],
  ];
  for (const [value, want] of cases) {
    test(JSON.stringify(value), () => check(parseGracePeriodValue(value), want, (v) => v));
  }
});
