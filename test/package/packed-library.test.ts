/**
 * The package as a user gets it: `npm pack` (whose prepack builds the library without tests), then
 * `npm install` of the tarball into a fresh project, where examples/library.mjs must run and name the
 * eviction, `npx evictd --help` must answer, and the types must resolve through the exports map.
 *
 * Packing runs in a copy of the package's inputs, not in the checkout: prepack rebuilds dist/src,
 * and the rest of the suite runs from the checkout's dist/src while this test does.
 */
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { REPO_ROOT } from "../support/repo-paths.js";

/** Why the suite cannot run here, or false. Only a missing npm is a reason: everything else fails. */
const NPM_SKIP: string | false =
  spawnSync("npm", ["--version"], { encoding: "utf8" }).error !== undefined
    ? "npm is not on PATH: the package cannot be packed and installed"
    : false;

interface Packed {
  /** The tarball's file paths, as `npm pack --json` lists them. */
  readonly files: readonly string[];
  /** A project with the tarball installed. */
  readonly app: string;
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = 120_000,
): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", npm_config_update_notifier: "false" },
  });
  if (r.error !== undefined) throw r.error;
  return r;
}

function succeeded(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} exited ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout;
}

/** What `npm pack` needs in the copy: the manifest, the build inputs, and what `files` ships. */
function packageInputs(): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { files: string[] };
  // dist/ is built by prepack from src/; negated patterns name nothing to copy.
  const shipped = manifest.files
    .filter((f) => !f.startsWith("!"))
    .map((f) => f.split("/")[0] ?? f)
    .filter((f) => f !== "dist");
  const inputs = ["package.json", "README.md", "tsconfig.json", "tsconfig.build.json", "src", ...shipped];
  return [...new Set(inputs)].filter((f) => existsSync(join(REPO_ROOT, f)));
}

describe("the packed package", { skip: NPM_SKIP }, () => {
  let work: string;
  let packed: Packed;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "evictd-pack-"));
    const pkg = join(work, "package");
    for (const input of packageInputs())
      cpSync(join(REPO_ROOT, input), join(pkg, input), { recursive: true });
    // prepack compiles with the checkout's TypeScript.
    symlinkSync(join(REPO_ROOT, "node_modules"), join(pkg, "node_modules"), "dir");
    const listing = succeeded(run("npm", ["pack", "--json", "--pack-destination", work], pkg), "npm pack");
    const [entry] = JSON.parse(listing) as { filename: string; files: { path: string }[] }[];
    assert.ok(entry !== undefined, `npm pack listed nothing:\n${listing}`);

    const app = join(work, "app");
    cpSync(join(REPO_ROOT, "examples", "library.mjs"), join(app, "library.mjs"));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    succeeded(
      run(
        "npm",
        ["install", join(work, entry.filename), "--no-audit", "--no-fund", "--prefer-offline", "--no-save"],
        app,
      ),
      "npm install of the tarball",
    );
    packed = { files: entry.files.map((f) => f.path), app };
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test("ships the library, its types, the CLI and the examples, and no test or test support", () => {
    const { files } = packed;
    for (const required of [
      "package.json",
      "bin/evictd.js",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/src/cli/main.js",
      "examples/library.mjs",
    ])
      assert.ok(files.includes(required), `${required} missing from the tarball`);
    assert.deepEqual(
      files.filter((f) => /\.test\.|(^|\/)testing\//.test(f)),
      [],
      "compiled tests or test support in the tarball",
    );
    assert.deepEqual(
      files.filter((f) => !/^(bin|dist\/src|examples)\/|^(package\.json|README\.md)$/.test(f)),
      [],
      "files outside bin/, dist/src/ and examples/",
    );
  });

  test("examples/library.mjs runs against the installed package and names the eviction", () => {
    const out = succeeded(run(process.execPath, ["library.mjs"], packed.app), "node library.mjs");
    const lines = out.split("\n");
    assert.match(
      lines[0] ?? "",
      /^thresholds: memory\.available<500Mi, .*allocatableMemory\.available<500Mi$/,
    );
    assert.ok(lines.includes("conditions: MemoryPressure"), out);
    // Exactly one eviction: web, the Burstable pod far over its request, for memory.
    const evictions = lines.filter((l) => l.startsWith("evict "));
    assert.equal(evictions.length, 1, out);
    assert.match(
      evictions[0] ?? "",
      /^evict default\/web \(memory\.available\): The node was low on resource: memory\. Threshold quantity: 500Mi, available: 400Mi\. Container main was using 1946Mi, request is 256Mi/,
    );
    assert.ok(
      lines.includes(
        "  1. default/web: working set 1946Mi against a request of 256Mi (over its request), priority 0",
      ),
      out,
    );
    assert.ok(
      lines.some((l) => l.startsWith("  3. default/db: ") && l.includes("(within its request)")),
      out,
    );
    assert.ok(lines.includes("admit default/cron: no, The node had condition: [MemoryPressure]. "), out);
    assert.ok(lines.includes("replay 0s: evicted nobody; conditions none"), out);
    assert.ok(lines.includes("replay 10s: evicted default/web; conditions MemoryPressure"), out);
  });

  test("npx evictd --help answers from the installed package", () => {
    const out = succeeded(run("npx", ["--no-install", "evictd", "--help"], packed.app), "npx evictd --help");
    assert.match(out, /^Usage: evictd /m);
    assert.match(out, /^\s+replay\b/m);
  });

  test("the exports map exposes the library and package.json, and nothing deeper", () => {
    const probe = [
      'import { createRequire } from "node:module";',
      'const lib = await import("evictd");',
      "console.log(typeof lib.synchronize, typeof lib.replay, typeof lib.parseJsonExact);",
      'console.log(createRequire(import.meta.url)("evictd/package.json").name);',
      'await import("evictd/dist/src/core/engine/synchronize.js").then(() => console.log("deep import allowed"), (e) => console.log(e.code));',
    ].join("\n");
    const out = succeeded(run(process.execPath, ["--input-type=module", "-e", probe], packed.app), "probe");
    assert.equal(out, "function function function\nevictd\nERR_PACKAGE_PATH_NOT_EXPORTED\n");
  });

  test("the types resolve through the exports map", () => {
    writeFileSync(
      join(packed.app, "check.ts"),
      [
        'import { INITIAL_STATE, replay, synchronize, type ReplayStepRecord, type SyncResult } from "evictd";',
        "export const first: typeof INITIAL_STATE = INITIAL_STATE;",
        "export type Step = ReplayStepRecord;",
        "export const sync: (...args: Parameters<typeof synchronize>) => SyncResult = synchronize;",
        "export async function evicted(): Promise<string[]> {",
        "  const pods: string[] = [];",
        '  for await (const r of replay({ steps: [{ at: "0s" }] })) if (r.type === "step") pods.push(...r.evictions.map((e) => e.pod));',
        "  return pods;",
        "}",
        "// @ts-expect-error: replay takes a scenario with steps",
        "void replay({});",
      ].join("\n"),
    );
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    const args = [
      "check.ts",
      "--noEmit",
      "--strict",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
    ];
    const typeRoots = ["--typeRoots", join(REPO_ROOT, "node_modules", "@types"), "--types", "node"];
    succeeded(
      run(process.execPath, [tsc, ...args, ...typeRoots, "--target", "es2023", "--skipLibCheck"], packed.app),
      "tsc",
    );
  });
});
