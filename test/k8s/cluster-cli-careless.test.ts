/**
 * The cluster commands in the hands of a careless or hostile operator, run as a user runs them
 * (`node bin/evictd.js ...`): kubeconfigs broken in every common way with credentials in them (no
 * credential is ever printed; the error still names the file, the line:column and the problem), a
 * token file that cannot be read (named, and no request goes out without it), a server that takes
 * the connection and never answers (every retry said, explain ends, watch keeps trying), and output
 * paths that cannot be written (refused before the cluster is contacted; a disk that fills up
 * leaves a valid trace or nothing).
 */
import assert from "node:assert/strict";
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, openSync, closeSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { EVICTD_BIN, REPO_ROOT } from "../harness/node-harness.js";
import { startFakeApiServer } from "../harness/fake-api-server/fake-api-server.js";
import { malformedKubeconfigs, SECRET_FRAGMENTS } from "./malformed-kubeconfigs.js";

const temps: string[] = [];
after(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "evictd-careless-"));
  temps.push(dir);
  return dir;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The CLI as a child process (the fake servers live in this process). A command still running
 * after `timeoutMs` is killed and reads as code -1: these commands must end by themselves.
 */
async function evictd(args: readonly string[], timeoutMs = 60_000): Promise<Run> {
  try {
    const r = await promisify(execFile)(process.execPath, [EVICTD_BIN, ...args], {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof err.code === "number" ? err.code : -1,
      stdout: err.stdout ?? "",
      stderr: err.stderr ?? "",
    };
  }
}

/** The CLI with its stdout on `file` (a device such as /dev/full). */
function evictdToFile(
  args: readonly string[],
  file: string,
): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(file, "w");
  const child = spawn(process.execPath, [EVICTD_BIN, ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", fd, "pipe"],
  });
  closeSync(fd);
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr })));
}

function assertNoCrash(r: Run, what: string): void {
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at |node:internal|Node\.js v/, `${what}: ${r.stderr}`);
}

/** A server that takes every connection and never answers; counts the connections. */
async function silentServer(): Promise<{
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A kubeconfig for `server` whose one user is `user`. */
async function kubeconfigFor(file: string, server: string, user: Record<string, unknown>): Promise<string> {
  await writeFile(
    file,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": "ctx",
      clusters: [{ name: "c", cluster: { server, "insecure-skip-tls-verify": true } }],
      users: [{ name: "tf", user }],
      contexts: [{ name: "ctx", context: { cluster: "c", user: "tf" } }],
    }),
  );
  return file;
}

/** The three cluster commands, with arguments that would otherwise run (record to `dir`). */
function clusterCommands(node: string, kubeconfig: string, dir: string): Record<string, string[]> {
  return {
    explain: ["explain", "--node", node, "--kubeconfig", kubeconfig],
    record: [
      "record",
      ...["--node", node, "--kubeconfig", kubeconfig],
      ...["-o", path.join(dir, "trace.jsonl"), "--duration", "1s", "--interval", "200ms"],
    ],
    watch: ["watch", "--node", node, "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0"],
  };
}

describe("a malformed kubeconfig", () => {
  test("explain, record and watch name the file, line:column and problem, and print no credential", async () => {
    const server = await startFakeApiServer();
    const dir = await tempDir();
    try {
      for (const [i, c] of malformedKubeconfigs(server.url).entries()) {
        const file = path.join(dir, `kubeconfig-${i}`);
        await writeFile(file, c.text);
        const commands = clusterCommands(server.nodeName, file, dir);
        await Promise.all(
          Object.entries(commands).map(async ([name, args]) => {
            const what = `${name} with ${c.name}`;
            const r = await evictd(args, 30_000);
            assert.equal(r.code, 3, `${what}: exit ${r.code}\n${r.stderr}`);
            for (const secret of SECRET_FRAGMENTS) {
              assert.ok(
                !r.stdout.includes(secret) && !r.stderr.includes(secret),
                `${what} printed ${secret}:\n${r.stdout}${r.stderr}`,
              );
            }
            assertNoCrash(r, what);
            const prefix = `  ${file}:${c.at}: `;
            const line = r.stderr.split("\n").find((l) => l.startsWith(prefix));
            assert.ok(line !== undefined, `${what}: no line "${prefix}…" in\n${r.stderr}`);
            assert.match(line.slice(prefix.length), c.problem, what);
            assert.match(r.stderr, new RegExp(`^evictd: kubeconfig ${file} is not usable`, "m"), what);
          }),
        );
        assert.equal(existsSync(path.join(dir, "trace.jsonl")), false, `${c.name}: record left a file`);
      }
      assert.deepEqual(server.requests, [], "nothing was sent");
    } finally {
      await server.close();
    }
  });
});

describe("a token file that cannot be read", () => {
  const cases: { name: string; make: (file: string) => Promise<void>; why: string }[] = [
    { name: "missing", make: () => Promise.resolve(), why: "no such file" },
    {
      name: "a directory",
      make: (f) => mkdir(f).then(() => undefined),
      why: "it is a directory, not a file",
    },
    {
      name: "a FIFO",
      make: (f) => Promise.resolve(void execFileSync("mkfifo", [f])),
      why: "it is not a regular file",
    },
    { name: "empty", make: (f) => writeFile(f, ""), why: "the file is empty" },
  ];
  for (const c of cases) {
    test(`tokenFile ${c.name}: named, exit 3, and no request reaches the server`, async () => {
      const server = await startFakeApiServer();
      const dir = await tempDir();
      try {
        const token = path.join(dir, "token");
        await c.make(token);
        // A relative path, as kubectl reads it: from the kubeconfig's directory.
        const kubeconfig = await kubeconfigFor(path.join(dir, "kubeconfig"), server.url, {
          tokenFile: "token",
        });
        for (const [name, args] of Object.entries(clusterCommands(server.nodeName, kubeconfig, dir))) {
          const r = await evictd(args, 30_000);
          assert.equal(r.code, 3, `${name}: ${r.stderr}`);
          assert.match(
            r.stderr,
            new RegExp(
              `^evictd: cannot read the token file ${token} of user "tf" in kubeconfig ${kubeconfig}: ${c.why}$`,
              "m",
            ),
            name,
          );
          assertNoCrash(r, name);
        }
        assert.deepEqual(server.requests, [], "no request went out without the token");
      } finally {
        await server.close();
      }
    });
  }

  test("a readable tokenFile is what every request carries (kubectl's field, which client-node ignores)", async () => {
    const server = await startFakeApiServer();
    const dir = await tempDir();
    try {
      await writeFile(path.join(dir, "token"), `${server.token}\n`);
      const kubeconfig = await kubeconfigFor(path.join(dir, "kubeconfig"), server.url, {
        tokenFile: "token",
      });
      const r = await evictd([
        "explain",
        "--node",
        server.nodeName,
        "--kubeconfig",
        kubeconfig,
        "-o",
        "json",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(server.requests.length > 0);
      assert.deepEqual(
        new Set(server.requests.map((q) => q.authorization)),
        new Set([`Bearer ${server.token}`]),
      );
    } finally {
      await server.close();
    }
  });
});

describe("a server that accepts the connection and never answers", () => {
  const configzRetry = (node: string, server: string, timeout: string): RegExp =>
    new RegExp(
      `^evictd: GET /api/v1/nodes/${node}/proxy/configz on the API server at ${server} failed: ETIMEDOUT: no response within ${timeout} \\(attempt (\\d) of at most 5\\); retrying in \\d+(\\.\\d+)?m?s$`,
    );

  test("explain --request-timeout 1s: one line per retry, then one error line and exit 3", async () => {
    const silent = await silentServer();
    const dir = await tempDir();
    try {
      const kubeconfig = await kubeconfigFor(path.join(dir, "kubeconfig"), silent.url, { token: "t" });
      const r = await evictd([
        "explain",
        "--node",
        "n1",
        "--kubeconfig",
        kubeconfig,
        "--request-timeout",
        "1s",
      ]);
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, "");
      const lines = r.stderr.trimEnd().split("\n");
      const retry = configzRetry("n1", silent.url, "1s");
      assert.deepEqual(
        lines.slice(0, 4).map((l) => retry.exec(l)?.[1]),
        ["1", "2", "3", "4"],
        r.stderr,
      );
      assert.equal(
        lines[4],
        `evictd: cannot reach the API server at ${silent.url}: ETIMEDOUT: no response within 1s (GET /api/v1/nodes/n1/proxy/configz, 5 attempts)`,
      );
      assert.match(lines[5] ?? "", /^ {2}hint: .*--request-timeout/);
      assert.equal(lines.length, 6, r.stderr);
      assert.equal(silent.connections(), 5);
    } finally {
      await silent.close();
    }
  });

  test("explain with the default request timeout gives up after two attempts (the 30s budget counts the timeouts)", async () => {
    const silent = await silentServer();
    const dir = await tempDir();
    try {
      const kubeconfig = await kubeconfigFor(path.join(dir, "kubeconfig"), silent.url, { token: "t" });
      // Two 10 s attempts; the kill at 120 s is only there so that a hang fails instead of stalling.
      const r = await evictd(["explain", "--node", "n1", "--kubeconfig", kubeconfig], 120_000);
      assert.equal(r.code, 3, r.stderr);
      const lines = r.stderr.trimEnd().split("\n");
      assert.equal(configzRetry("n1", silent.url, "10s").exec(lines[0] ?? "")?.[1], "1", r.stderr);
      assert.equal(
        lines[1],
        `evictd: cannot reach the API server at ${silent.url}: ETIMEDOUT: no response within 10s (GET /api/v1/nodes/n1/proxy/configz, 2 attempts)`,
      );
      assert.equal(silent.connections(), 2);
    } finally {
      await silent.close();
    }
  });

  test("watch keeps trying, says so on every retry, and stops on SIGTERM", async () => {
    const silent = await silentServer();
    const dir = await tempDir();
    try {
      const kubeconfig = await kubeconfigFor(path.join(dir, "kubeconfig"), silent.url, { token: "t" });
      const child = spawn(
        process.execPath,
        [
          EVICTD_BIN,
          "watch",
          "--node",
          "n1",
          "--kubeconfig",
          kubeconfig,
          "--listen",
          "127.0.0.1:0",
          "--request-timeout",
          "200ms",
        ],
        { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const messages = (): string[] =>
        stdout
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => (JSON.parse(l) as { msg: string }).msg);
      // The first call's four retries, the startup's "trying again", then the next call's first retry.
      const startupRetry =
        /^reading the kubelet's configuration failed \(attempt 1\): cannot reach the API server at .*: ETIMEDOUT: no response within 200ms .*; trying again in 1s/;
      for (
        let i = 0;
        i < 1200 && messages().filter((m) => m.includes("(attempt 1 of at most 5)")).length < 2;
        i++
      )
        await new Promise((r) => setTimeout(r, 50));
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      const said = messages();
      const retries = said.filter((m) =>
        / failed: ETIMEDOUT: no response within 200ms \(attempt \d of at most 5\); retrying in /.test(m),
      );
      assert.deepEqual(
        retries.slice(0, 5).map((m) => /attempt (\d)/.exec(m)?.[1]),
        ["1", "2", "3", "4", "1"],
        said.join("\n"),
      );
      const startupIndex = said.findIndex((m) => startupRetry.test(m));
      assert.ok(startupIndex > said.indexOf(retries[3] ?? ""), said.join("\n"));
      assert.ok(startupIndex < said.lastIndexOf(retries[4] ?? ""), said.join("\n"));
      assert.ok(said.includes("stopping"));
    } finally {
      await silent.close();
    }
  });

  test("--request-timeout takes Go durations or seconds like kubectl; anything else is exit 2 naming it", async () => {
    for (const bad of ["soon", "-1s", "25h", "1.5"]) {
      const r = await evictd([
        "explain",
        "--node",
        "n1",
        "--kubeconfig",
        "/nonexistent",
        "--request-timeout",
        bad,
      ]);
      assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(`--request-timeout: expected a duration .*, got "${bad.replace(".", "\\.")}"`),
      );
    }
  });
});

describe("output paths", () => {
  test("record -o and watch --decision-log/--record that cannot be written: exit 2, one line each, before any request", async () => {
    const server = await startFakeApiServer();
    const dir = await tempDir();
    const readOnly = path.join(dir, "read-only");
    await mkdir(readOnly);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", readOnly]);
    try {
      await writeFile(path.join(readOnly, "existing.jsonl"), "");
      execFileSync("mount", ["-o", "remount,ro", readOnly]);
      const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
      const node = ["--node", server.nodeName, "--kubeconfig", kubeconfig];
      const cases: { args: string[]; lines: string[] }[] = [
        {
          args: ["record", ...node, "-o", "/nonexistent/x.jsonl"],
          lines: ['--output: cannot write "/nonexistent/x.jsonl": the directory /nonexistent does not exist'],
        },
        {
          args: ["record", ...node, "-o", dir],
          lines: [`--output: cannot write "${dir}": it is a directory, not a file`],
        },
        {
          args: ["record", ...node, "-o", path.join(readOnly, "x.jsonl")],
          lines: [
            `--output: cannot write "${path.join(readOnly, "x.jsonl")}": the directory ${readOnly} is on a read-only file system`,
          ],
        },
        {
          args: ["record", ...node, "-o", path.join(readOnly, "existing.jsonl")],
          lines: [
            `--output: cannot write "${path.join(readOnly, "existing.jsonl")}": the file is on a read-only file system`,
          ],
        },
        {
          args: [
            "watch",
            ...node,
            "--listen",
            "127.0.0.1:0",
            "--decision-log",
            dir,
            "--record",
            "/nonexistent/t.jsonl",
          ],
          lines: [
            `--decision-log: cannot write "${dir}": it is a directory, not a file`,
            '--record: cannot write "/nonexistent/t.jsonl": the directory /nonexistent does not exist',
          ],
        },
      ];
      for (const c of cases) {
        const r = await evictd(c.args, 30_000);
        assert.equal(r.code, 2, `${c.args.join(" ")}: ${r.stderr}`);
        assert.deepEqual(r.stderr.trimEnd().split("\n"), c.lines);
        assert.equal(r.stdout, "");
      }
      assert.deepEqual(server.requests, [], "the cluster was not contacted");
    } finally {
      execFileSync("umount", [readOnly]);
      await server.close();
    }
  });

  test("record -o /dev/full: one line, exit 3, no stack trace", async () => {
    const server = await startFakeApiServer();
    const dir = await tempDir();
    try {
      const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
      const r = await evictd(
        [
          "record",
          "--node",
          server.nodeName,
          "--kubeconfig",
          kubeconfig,
          "-o",
          "/dev/full",
          "--duration",
          "1s",
          "--interval",
          "200ms",
        ],
        30_000,
      );
      assert.equal(r.code, 3, r.stderr);
      assertNoCrash(r, "record -o /dev/full");
      // The configz's own warning (a plain warning line, as explain prints it) comes first; then
      // the one line of the failure.
      assert.deepEqual(
        r.stderr
          .trimEnd()
          .split("\n")
          .filter((l) => !/(?:^|: )warning: /.test(l)),
        ["evictd: cannot write the trace /dev/full: no space left on the device (nothing was written)"],
      );
    } finally {
      await server.close();
    }
  });

  test("record onto a disk that fills up leaves a valid trace of the lines before, or no file at all", async () => {
    const server = await startFakeApiServer();
    const dir = await tempDir();
    const disk = path.join(dir, "small-disk");
    await mkdir(disk);
    try {
      const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
      const record = (output: string, duration: string): Promise<Run> =>
        evictd(
          [
            "record",
            "--node",
            server.nodeName,
            "--kubeconfig",
            kubeconfig,
            "-o",
            output,
            "--duration",
            duration,
            "--interval",
            "100ms",
          ],
          60_000,
        );
      // One sample on a roomy disk, to size the small one: the header and two samples fit, not twenty.
      const sizing = path.join(dir, "sizing.jsonl");
      assert.equal((await record(sizing, "0s")).code, 0);
      const [header = "", sample = ""] = (await readFile(sizing, "utf8")).split("\n");
      const page = 4096;
      const size = Math.ceil((Buffer.byteLength(header) + 2.5 * Buffer.byteLength(sample)) / page) * page;
      execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", disk]);

      const trace = path.join(disk, "trace.jsonl");
      const full = await record(trace, "2s");
      assert.equal(full.code, 3, full.stderr);
      assertNoCrash(full, "record onto a full disk");
      const kept =
        /^evictd: cannot write the trace .*trace\.jsonl: no space left on the device \(its first (\d+) line\(s\), written whole before, are kept: a valid trace\)$/m.exec(
          full.stderr,
        );
      assert.ok(kept?.[1] !== undefined, full.stderr);
      const lines = (await readFile(trace, "utf8")).split("\n");
      assert.equal(lines.pop(), "", "the file ends with a whole line");
      assert.equal(lines.length, Number(kept[1]));
      for (const l of lines) JSON.parse(l);
      const replay = await evictd(["replay", trace, "--output", "jsonl"]);
      assert.equal(replay.code, 0, replay.stderr);
      assert.equal(
        replay.stdout.split("\n").filter((l) => l.includes('"type":"step"')).length,
        lines.length - 1,
      );
      await rm(trace);

      // A disk too small for the header: nothing is left behind.
      execFileSync("mount", ["-o", `remount,size=${page}`, disk]);
      const tiny = await record(trace, "1s");
      assert.equal(tiny.code, 3, tiny.stderr);
      assert.match(
        tiny.stderr,
        /^evictd: cannot write the trace .*: no space left on the device \(nothing was written; the file is removed\)$/m,
      );
      await assert.rejects(stat(trace), { code: "ENOENT" });
    } finally {
      try {
        execFileSync("umount", [disk], { stdio: "ignore" });
      } catch {
        // Not mounted: the sizing run failed before.
      }
      await server.close();
    }
  });

  test("explain > /dev/full: one line, exit 3", async () => {
    const server = await startFakeApiServer();
    const dir = await tempDir();
    try {
      const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
      const r = await evictdToFile(
        ["explain", "--node", server.nodeName, "--kubeconfig", kubeconfig],
        "/dev/full",
      );
      assert.equal(r.code, 3, r.stderr);
      assert.deepEqual(
        r.stderr
          .trimEnd()
          .split("\n")
          .filter((l) => !l.startsWith("warning: ")),
        ["evictd: cannot write to standard output: no space left on the device"],
      );
    } finally {
      await server.close();
    }
  });
});
