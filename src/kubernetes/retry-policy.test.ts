import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay, retryPolicyWith } from "./retry-policy.js";

describe("retryDelay", () => {
  const policy = retryPolicyWith({ jitter: 0 });
  const cases: {
    name: string;
    retry: number;
    retryAfterMs?: number;
    random?: number;
    jitter?: number;
    want: number;
  }[] = [
    { name: "first retry waits the base delay", retry: 0, want: 250 },
    { name: "then doubles", retry: 1, want: 500 },
    { name: "and doubles again", retry: 3, want: 2000 },
    { name: "up to the longest single wait", retry: 10, want: 10_000 },
    { name: "Retry-After wins over the backoff", retry: 3, retryAfterMs: 0, want: 0 },
    { name: "Retry-After is capped too", retry: 0, retryAfterMs: 60_000, want: 10_000 },
    { name: "jitter takes off up to its fraction", retry: 1, jitter: 0.2, random: 0.5, want: 450 },
    { name: "jitter at random 0 takes nothing", retry: 1, jitter: 0.2, random: 0, want: 500 },
    {
      name: "jitter does not touch Retry-After",
      retry: 1,
      jitter: 0.5,
      random: 0.9,
      retryAfterMs: 3000,
      want: 3000,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const p = c.jitter === undefined ? policy : retryPolicyWith({ jitter: c.jitter });
      assert.equal(
        retryDelay(p, c.retry, c.retryAfterMs, () => c.random ?? 0.99),
        c.want,
      );
    });
  }

  test("the defaults: 5 attempts, 3 while a budget blocks, 30 s of waiting at most", () => {
    assert.equal(DEFAULT_RETRY_POLICY.attempts, 5);
    assert.equal(DEFAULT_RETRY_POLICY.disruptionBudgetAttempts, 3);
    assert.equal(DEFAULT_RETRY_POLICY.totalDelayMs, 30_000);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2026, 5, 26, 10, 0, 0);
  const cases: { header: string | string[] | undefined; want: number | undefined }[] = [
    { header: "0", want: 0 },
    { header: "10", want: 10_000 },
    { header: " 3 ", want: 3000 },
    { header: ["2", "5"], want: 2000 },
    { header: "Fri, 26 Jun 2026 10:00:05 GMT", want: 5000 },
    { header: "Fri, 26 Jun 2026 09:59:00 GMT", want: 0 },
    { header: "soon", want: undefined },
    { header: "-1", want: undefined },
    { header: "", want: undefined },
    { header: undefined, want: undefined },
  ];
  for (const c of cases) {
    test(`${JSON.stringify(c.header)} → ${c.want}`, () => {
      assert.equal(parseRetryAfter(c.header, now), c.want);
    });
  }
});
