// The prom-client classes taken from the package's own modules are the ones its index exports.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as promClient from "prom-client";
import { Counter, Gauge, Histogram, Registry } from "./prom-client-parts.js";

describe("prom-client parts", () => {
  test("are the very classes of the package's index (so a version that moves them fails here)", () => {
    assert.equal(Registry, promClient.Registry);
    assert.equal(Counter, promClient.Counter);
    assert.equal(Gauge, promClient.Gauge);
    assert.equal(Histogram, promClient.Histogram);
  });
});
