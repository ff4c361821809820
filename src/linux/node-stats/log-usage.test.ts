/** Which log files belong to which container: the live log and its rotated copies, nothing else. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isLogOf } from "./log-usage.js";

describe("isLogOf", () => {
  const cases = [
    { file: "app.log", live: "app.log", want: true },
    { file: "app.log.1", live: "app.log", want: true },
    { file: "app.log.20260626-101435.gz", live: "app.log", want: true },
    { file: "app-2.log", live: "app.log", want: false },
    { file: "app.log", live: "app-2.log", want: false },
    { file: "sidecar.log", live: "app.log", want: false },
    { file: "app.logx", live: "app.log", want: false },
    { file: "app", live: "app.log", want: false },
  ];
  for (const c of cases) {
    test(`${c.file} of ${c.live}: ${c.want}`, () => assert.equal(isLogOf(c.file, c.live), c.want));
  }
});
