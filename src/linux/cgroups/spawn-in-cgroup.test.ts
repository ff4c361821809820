/** The spawn shim against plain files standing in for cgroup.procs: pid written first, argv passed verbatim, failures reported. (Live cgroup checks: cgroup-live.test.ts.) */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import { SHIM_JOIN_FAILED, spawnInCgroups } from "./spawn-in-cgroup.js";

const temps: string[] = [];
after(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function procsFiles(n: number): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "evictd-shim-"));
  temps.push(dir);
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    await mkdir(join(dir, `h${i}`));
    files.push(join(dir, `h${i}`, "cgroup.procs"));
  }
  return { dir, files };
}

/** Collects stdout, stderr and the exit status of a child. */
function finish(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", EVICTD_TEST: "yes" };

describe("spawnInCgroups", () => {
  test("writes the child's own pid to every file, then runs the command with argv untouched by the shell", async () => {
    const { dir, files } = await procsFiles(2);
    const tricky = [
      "$HOME",
      "*",
      "a b",
      "'q'",
      '"dq"',
      "; rm -rf /",
      "`id`",
      "$(id)",
      "",
      "line\nbreak",
      "--",
      "-e",
    ];
    const script =
      "process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), cwd: process.cwd(), env: process.env.EVICTD_TEST, pid: process.pid }))";
    const child = spawnInCgroups([process.execPath, "-e", script, ...tricky], env, dir, files);
    const { code, stdout, stderr } = await finish(child);
    assert.equal(code, 0, stderr);
    const out = JSON.parse(stdout) as { argv: string[]; cwd: string; env: string; pid: number };
    assert.deepEqual(out.argv, tricky);
    assert.equal(out.cwd, dir);
    assert.equal(out.env, "yes");
    // exec keeps the shell's pid: what was written is the program's pid, and the one spawn reports.
    assert.equal(out.pid, child.pid);
    for (const f of files) assert.equal(await readFile(f, "utf8"), `${child.pid}\n`);
  });

  test("when a file cannot be written, the command never runs and the shim exits with SHIM_JOIN_FAILED", async () => {
    const { dir, files } = await procsFiles(1);
    const missing = join(dir, "gone", "cgroup.procs");
    const marker = join(dir, "ran");
    const child = spawnInCgroups(["/bin/sh", "-c", 'echo ran > "$1"', "sh", marker], env, dir, [
      ...files,
      missing,
    ]);
    const { code, stdout, stderr } = await finish(child);
    assert.equal(code, SHIM_JOIN_FAILED);
    assert.equal(stdout, "");
    assert.match(stderr, new RegExp(`evictd-shim: cannot join cgroup through ${missing}`));
    await assert.rejects(readFile(marker), { code: "ENOENT" });
  });

  test("a command that does not exist exits with 127, as from a shell", async () => {
    const { dir, files } = await procsFiles(1);
    const { code, stderr } = await finish(spawnInCgroups(["evictd-no-such-command"], env, dir, files));
    assert.equal(code, 127);
    assert.match(stderr, /evictd-no-such-command/);
  });

  test("with no files it is a plain spawn", async () => {
    const { code, stdout } = await finish(spawnInCgroups(["echo", "hi"], env, tmpdir(), []));
    assert.equal(code, 0);
    assert.equal(stdout, "hi\n");
  });

  const refused: { name: string; argv: string[]; files?: string[]; message: RegExp }[] = [
    { name: "empty argv", argv: [], message: /empty/ },
    { name: "empty command", argv: [""], message: /empty/ },
    { name: "a command starting with a dash", argv: ["-l", "x"], message: /may not start with "-"/ },
    {
      name: "a relative procs file",
      argv: ["true"],
      files: ["cgroup.procs"],
      message: /not an absolute path to a cgroup.procs file/,
    },
    {
      name: "a file that is not cgroup.procs",
      argv: ["true"],
      files: ["/sys/fs/cgroup/memory/memory.limit_in_bytes"],
      message: /not an absolute path/,
    },
  ];
  for (const r of refused) {
    test(`refuses ${r.name} with an AdapterError`, () => {
      assert.throws(
        () => spawnInCgroups(r.argv, env, tmpdir(), r.files ?? []),
        (e: unknown) =>
          e instanceof AdapterError && e.code === "spawn-invalid-argv" && r.message.test(e.message),
      );
    });
  }
});
