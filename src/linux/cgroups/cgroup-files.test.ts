/** How kernel errors on cgroup files become AdapterErrors: the code callers act on, the file named. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fileError } from "./cgroup-files.js";

const errno = (code: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: from the kernel`), { code });

describe("fileError", () => {
  test("ENODEV (a cgroup removed while one of its files is read) is a cgroup gone, as ENOENT is", () => {
    // Seen for real: a pod's runtime read cgroup.procs while its cgroup was being removed, and the
    // daemon took the error for an I/O failure (and, uncaught, ended).
    const path = "/sys/fs/cgroup/pids/node/pods/burstable/pod1/ramp/cgroup.procs";
    for (const code of ["ENODEV", "ENOENT"]) {
      const e = fileError("read", path, errno(code));
      assert.equal(e.code, "cgroup-not-found", code);
      assert.ok(e.message.includes(path), e.message);
    }
    assert.equal(fileError("read", path, errno("EIO")).code, "cgroup-io");
  });
});
