/** Container argv and environment, and the oom_score_adj stage run for real. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { parseManifestText } from "./read-manifest-file.js";
import { containerArgv, containerEnv, withOomScoreAdj } from "./container-launch.js";

function firstPod(spec: string) {
  const r = parseManifestText(`metadata: { name: web, namespace: shop, uid: u-9 }\nspec:\n${spec}`, "t.yaml");
  assert.deepEqual(r.issues, []);
  return r.pods[0]!;
}

describe("containerEnv and containerArgv", () => {
  test("defaults, volume variables, env in order with $(VAR) references, and argv expanded against them", () => {
    const pod = firstPod(`  containers:
  - name: app
    command: [sh, -c]
    args: ['echo $(GREETING) $(NOPE) $$(GREETING)']
    env:
    - { name: NAME, value: world }
    - { name: GREETING, value: 'hello $(NAME)' }
    - { name: DATA_COPY, value: '$(EVICTD_VOLUME_DATA)' }
    - { name: FROM_FIELD, valueFrom: { fieldRef: { fieldPath: metadata.name } } }
`);
    const c = pod.containers[0]!;
    const env = containerEnv(
      pod,
      c,
      "/state/pods/u-9/containers/app/rootfs",
      new Map([["EVICTD_VOLUME_DATA", "/state/pods/u-9/volumes/data"]]),
    );
    assert.equal(env["HOME"], "/state/pods/u-9/containers/app/rootfs");
    assert.equal(env["HOSTNAME"], "web");
    assert.equal(env["EVICTD_POD_NAMESPACE"], "shop");
    assert.equal(env["GREETING"], "hello world");
    assert.equal(env["DATA_COPY"], "/state/pods/u-9/volumes/data");
    assert.equal(env["FROM_FIELD"], undefined, "valueFrom cannot be resolved without an API server");
    assert.match(env["PATH"] ?? "", /\/usr\/bin/);
    assert.deepEqual(containerArgv(c, env), ["sh", "-c", "echo hello world $(NOPE) $(GREETING)"]);
  });

  test("no command is an error (there is no image entrypoint); args alone are the argv; a leading dash is refused", () => {
    const pod = firstPod(
      `  containers:\n  - name: a\n  - name: b\n    args: [sleep, "1"]\n  - name: c\n    command: [-rf]\n`,
    );
    const [a, b, c] = pod.containers;
    assert.match((containerArgv(a!, {}) as { error: string }).error, /no command/);
    assert.deepEqual(containerArgv(b!, {}), ["sleep", "1"]);
    assert.match((containerArgv(c!, {}) as { error: string }).error, /may not start with "-"/);
  });
});

describe("withOomScoreAdj", { skip: process.platform === "linux" ? false : "needs /proc" }, () => {
  test("the command starts with the adjustment already set, argv untouched", () => {
    const r = spawnSync(
      withOomScoreAdj(500, [
        "sh",
        "-c",
        'cat /proc/self/oom_score_adj; printf "%s|" "$@"',
        "x",
        "a b",
        "$HOME",
        "*",
      ])[0]!,
      withOomScoreAdj(500, [
        "sh",
        "-c",
        'cat /proc/self/oom_score_adj; printf "%s|" "$@"',
        "x",
        "a b",
        "$HOME",
        "*",
      ]).slice(1),
      { encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, "500\na b|$HOME|*|");
  });

  test(
    "a refused adjustment is reported on stderr and the command still runs",
    {
      skip:
        readFileSync("/proc/self/oom_score_adj", "utf8").trim() === "-1000"
          ? "already at the minimum"
          : false,
    },
    () => {
      // Lowering below the current value needs CAP_SYS_RESOURCE: drop it by running as nobody when root.
      const argv = withOomScoreAdj(-1000, ["sh", "-c", "echo ran"]);
      const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", ...asNobody });
      assert.equal(r.stdout, "ran\n");
      assert.match(r.stderr, /cannot set oom_score_adj to -1000/);
    },
  );
});
