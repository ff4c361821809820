/**
 * deploy/evictd.service, the unit for plain Linux hosts, as systemd reads it: `systemd-analyze
 * verify` finds nothing to say (no unknown key, no bad value, a command it can run), and the unit
 * gives the daemon its cgroup subtree (Delegate=yes) and leaves the pods running across restarts.
 * The command is checked as the repository's own bin/evictd.js in place of /usr/local/bin/evictd,
 * where `npm install -g` puts it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../support/repo-paths.js";

const UNIT = join(REPO_ROOT, "deploy", "evictd.service");
const INSTALLED = "/usr/local/bin/evictd";
const analyze = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" });
const skip =
  analyze.status === 0 ? false : "systemd-analyze is not installed (Debian: apt-get install systemd)";
if (skip !== false) console.error(`# systemd unit check skipped: ${skip}`);

/** The unit's `[Service]` settings, each key with its values in order. */
function serviceSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header !== null) {
      section = header[1] ?? "";
      continue;
    }
    const eq = line.indexOf("=");
    if (section !== "Service" || eq < 0) continue;
    const key = line.slice(0, eq);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1)]);
  }
  return settings;
}

test("systemd-analyze verify accepts deploy/evictd.service without a warning", { skip }, () => {
  const text = readFileSync(UNIT, "utf8");
  assert.ok(text.includes(`ExecStart=${INSTALLED} run `), "the unit runs the installed command");
  const dir = mkdtempSync(join(tmpdir(), "evictd-unit-"));
  try {
    const copy = join(dir, "evictd.service");
    writeFileSync(
      copy,
      text.replace(`ExecStart=${INSTALLED} `, `ExecStart=${join(REPO_ROOT, "bin", "evictd.js")} `),
    );
    const r = spawnSync("systemd-analyze", ["verify", copy], { encoding: "utf8" });
    assert.equal(r.status, 0, `systemd-analyze verify: ${r.stderr}`);
    assert.equal(r.stderr.trim(), "", "no warnings");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the unit delegates the cgroup subtree and leaves pods running across daemon restarts", () => {
  const service = serviceSettings(readFileSync(UNIT, "utf8"));
  assert.deepEqual(service.get("Delegate"), ["yes"]);
  assert.deepEqual(service.get("KillMode"), ["process"]);
  assert.deepEqual(service.get("ExecStart"), [`${INSTALLED} run --node /etc/evictd/node.yaml`]);
  assert.deepEqual(service.get("OOMScoreAdjust"), ["-999"]);
});
