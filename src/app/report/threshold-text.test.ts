/** A threshold as written, and a percentage with what it comes to in binary units (or as a count). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { thresholdText } from "./threshold-text.js";

describe("thresholdText", () => {
  test("a percentage of bytes: as written, then the bytes in binary units", () => {
    assert.equal(
      thresholdText("memory.available", { value: "10%", quantity: "97789613898" }),
      "10% (91.1 GiB)",
    );
    assert.equal(
      thresholdText("nodefs.available", { value: "10%", quantity: "27055317804" }),
      "10% (25.2 GiB)",
    );
    assert.equal(thresholdText("imagefs.available", { value: "15%", quantity: "300Mi" }), "15% (300 MiB)");
  });

  test("a quantity as written", () => {
    assert.equal(thresholdText("memory.available", { value: "500Mi", quantity: "500Mi" }), "500Mi");
    assert.equal(thresholdText("memory.available", { value: "1G", quantity: "1G" }), "1G");
  });

  test("a percentage of a count: the count itself", () => {
    assert.equal(thresholdText("nodefs.inodesFree", { value: "5%", quantity: "655360" }), "5% (655360)");
    assert.equal(thresholdText("pid.available", { value: "10%", quantity: "400Ki" }), "10% (409600)");
  });

  test("a percentage with no capacity to resolve against: as written", () => {
    assert.equal(thresholdText("memory.available", { value: "10%" }), "10%");
  });
});
