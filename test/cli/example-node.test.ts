/**
 * examples/node: the node file and manifest directory examples/README.md tells a newcomer to run
 * with `sudo node bin/evictd.js run --node examples/node/node.yaml`. The node file checks clean
 * (exit 0, not one warning), its directories are the ones its comments name, and every manifest
 * decodes without a problem into the QoS classes its comment says, each running a program that is
 * on the machine. Nothing is started.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { describe, test } from "node:test";
import { computePodQos } from "../../src/core/pod/qos.js";
import { readManifestFile } from "../../src/runtime/read-manifest-file.js";
import { CLI_SKIP, EXAMPLES, assertNoCrash, runEvictd, stderrLines } from "./evictd-cli.js";

const NODE_FILE = "examples/node/node.yaml";
const MANIFESTS = join(EXAMPLES, "node", "manifests");
/** Each manifest's QoS class, as its comment says. */
const QOS: Readonly<Record<string, string>> = {
  "besteffort.yaml": "BestEffort",
  "burstable.yaml": "Burstable",
  "guaranteed.yaml": "Guaranteed",
};

describe("examples/node", () => {
  test("evictd check-config --node examples/node/node.yaml: exit 0, no warning", { skip: CLI_SKIP }, () => {
    const r = runEvictd(["check-config", "--node", NODE_FILE]);
    assert.equal(r.status, 0, r.stderr);
    assertNoCrash(r);
    assert.deepEqual(stderrLines(r), []);
    assert.match(r.stdout, /^node example \(examples\/node\/node\.yaml\), as evictd run would use it:/);
  });

  test("a harmless stateDir; manifestDir is manifests/ beside the node file", { skip: CLI_SKIP }, () => {
    const r = runEvictd(["check-config", "--node", NODE_FILE, "--output", "json"]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(stderrLines(r), []);
    const { node } = JSON.parse(r.stdout) as { node: { stateDir: string; manifestDir: string } };
    assert.equal(node.stateDir, "/tmp/evictd-example-state");
    assert.equal(node.manifestDir, MANIFESTS);
  });

  test("every manifest decodes cleanly: one Burstable, one BestEffort, one Guaranteed pod", async () => {
    const files = readdirSync(MANIFESTS)
      .filter((f) => f.endsWith(".yaml"))
      .sort();
    assert.deepEqual(files, Object.keys(QOS));
    for (const name of files) {
      const read = await readManifestFile(join(MANIFESTS, name));
      assert.deepEqual(read.issues, [], name);
      assert.equal(read.pods.length, 1, name);
      const pod = read.pods[0];
      assert.ok(pod !== undefined);
      assert.equal(computePodQos(pod), QOS[name], name);
      for (const c of pod.containers) {
        const program = c.command?.[0];
        assert.ok(
          program !== undefined && isAbsolute(program),
          `${name}: ${c.name} names no program by path`,
        );
        assert.ok(existsSync(program), `${name}: ${program} is not on this machine`);
      }
    }
  });
});
