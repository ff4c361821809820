import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { mapConcurrently } from "./map-concurrently.js";

describe("mapConcurrently", () => {
  test("results in the items' order, never more than the limit under way", async () => {
    let running = 0;
    let most = 0;
    const items = Array.from({ length: 20 }, (_, i) => i);
    const out = await mapConcurrently(items, 3, async (n, i) => {
      running++;
      most = Math.max(most, running);
      // Later items finish sooner: the order of results must not follow the order of completion.
      await delay(20 - n);
      running--;
      return `${n}@${i}`;
    });
    assert.deepEqual(
      out,
      items.map((n) => `${n}@${n}`),
    );
    assert.equal(most, 3);
  });

  test("no items: no calls; a limit below 1 still makes progress", async () => {
    assert.deepEqual(await mapConcurrently([], 4, () => Promise.reject(new Error("called"))), []);
    assert.deepEqual(await mapConcurrently([1, 2], 0, (n) => Promise.resolve(n * 2)), [2, 4]);
  });

  test("the first rejection rejects the whole", async () => {
    await assert.rejects(
      mapConcurrently([1, 2, 3], 2, async (n) => {
        await delay(n);
        if (n === 2) throw new Error("two failed");
        return n;
      }),
      /two failed/,
    );
  });
});
