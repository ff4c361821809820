/** Whether `evictd watch` preflights evictions: by mode unless the operator says, never in shadow mode. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { evictionPreflightFor } from "./watch.js";

test("on through the Eviction API, off with deletion, unless asked; never in shadow mode", () => {
  assert.equal(evictionPreflightFor("eviction-api", undefined), true);
  assert.equal(evictionPreflightFor("delete", undefined), false);
  assert.equal(evictionPreflightFor("eviction-api", false), false);
  assert.equal(evictionPreflightFor("delete", true), true);
  assert.equal(evictionPreflightFor("shadow", true), false);
});
