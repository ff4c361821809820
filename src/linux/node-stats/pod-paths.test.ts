/** The pod runtime's file layout, and which log files belong to which container. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isLogOf, podDir, podPaths } from "./pod-paths.js";

describe("podPaths", () => {
  test("the layout under <stateDir>/pods/<uid>", () => {
    const dir = podDir("/var/lib/evictd", "8c2f");
    assert.equal(dir, "/var/lib/evictd/pods/8c2f");
    const paths = podPaths(dir);
    assert.equal(paths.logsDir, "/var/lib/evictd/pods/8c2f/logs");
    assert.equal(paths.volume("cache"), "/var/lib/evictd/pods/8c2f/volumes/cache");
    assert.equal(paths.rootfs("app"), "/var/lib/evictd/pods/8c2f/containers/app/rootfs");
  });
});

describe("isLogOf", () => {
  const cases = [
    { file: "app.log", container: "app", want: true },
    { file: "app.log.1", container: "app", want: true },
    { file: "app.log.20260626-101435.gz", container: "app", want: true },
    { file: "app-2.log", container: "app", want: false },
    { file: "app.log", container: "app-2", want: false },
    { file: "sidecar.log", container: "app", want: false },
    { file: "app.logx", container: "app", want: false },
    { file: "app", container: "app", want: false },
  ];
  for (const c of cases) {
    test(`${c.file} of ${c.container}: ${c.want}`, () => assert.equal(isLogOf(c.file, c.container), c.want));
  }
});
