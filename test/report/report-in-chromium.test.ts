/**
 * The replay report in a real browser: Debian's chromium, headless, opens the report of a
 * 3,000-step trace of a 110-pod node (the generated trace the replay bench uses) and takes a
 * screenshot; the screenshot must show the charts, not just a page: the observed-available lines,
 * the threshold lines, the eviction markers and the stacked pod layers, each found by its colour
 * in the pixels. Skipped, with the reason, where no chromium is installed (`.ci/run` installs it).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { PNG } from "pngjs";
import { writeTraceFile } from "../../tools/trace-generator/generate-trace.js";
import { CLI_SKIP, runEvictd } from "../cli/evictd-cli.js";

function findChromium(): string | undefined {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim() !== "") return r.stdout.trim();
  }
  return undefined;
}

const CHROMIUM = findChromium();
const SKIP =
  CLI_SKIP || (CHROMIUM === undefined ? "no chromium installed (apt-get install chromium)" : false);
if (SKIP !== false) console.log(`# report-in-chromium skipped: ${SKIP}`);

/** A screenshot of `file` at 1100 px wide, `height` tall. */
function screenshot(chromium: string, file: string, out: string, height: number): PNG {
  const r = spawnSync(
    chromium,
    [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      `--window-size=1100,${height}`,
      `--screenshot=${out}`,
      `file://${file}`,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return PNG.sync.read(readFileSync(out));
}

/** Pixels in rows [y0, y1) that `match`. */
function countMatching(
  png: PNG,
  y0: number,
  y1: number,
  match: (r: number, g: number, b: number) => boolean,
): number {
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      if (match(png.data[i] ?? 0, png.data[i + 1] ?? 0, png.data[i + 2] ?? 0)) n++;
    }
  }
  return n;
}

/** Pixels within `tolerance` of `rgb` in rows [y0, y1). */
function countColour(
  png: PNG,
  rgb: readonly [number, number, number],
  y0 = 0,
  y1 = png.height,
  tolerance = 12,
): number {
  const near = (v: number, c: number): boolean => Math.abs(v - c) <= tolerance;
  return countMatching(png, y0, y1, (r, g, b) => near(r, rgb[0]) && near(g, rgb[1]) && near(b, rgb[2]));
}

const AVAILABLE_BLUE = [0x1f, 0x5f, 0xbf] as const;
const HARD_RED = [0xd6, 0x27, 0x28] as const;
/** The soft threshold's orange (#f28e2b) as antialiasing leaves it; the pale grace bands are not. */
const isOrange = (r: number, g: number, b: number): boolean =>
  r >= 0xe0 && g >= 0x80 && g <= 0xc8 && b <= 0xa0;
/** The first layers of the stacked pod chart. */
const LAYERS = [
  [0x4e, 0x79, 0xa7],
  [0x59, 0xa1, 0x4f],
  [0xb0, 0x7a, 0xa1],
] as const;

describe("the replay report in headless chromium", { skip: SKIP }, () => {
  const dir = mkdtempSync(join(tmpdir(), "evictd-report-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a 3,000-step × 110-pod trace: a file under 10 MB whose screenshot shows every chart", () => {
    const trace = join(dir, "trace.jsonl");
    writeTraceFile(trace, { steps: 3000, pods: 110, richness: "recorded", format: "jsonl" });
    const report = join(dir, "report.html");
    const r = runEvictd(["replay", trace, "--output", "jsonl", "--report", report]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /report written to .*report\.html: 3000 steps, \d+ evictions?/);
    const size = statSync(report).size;
    assert.ok(size <= 10 * 1024 * 1024, `${size} bytes`);

    const png = screenshot(CHROMIUM ?? "", report, join(dir, "top.png"), 1400);
    // The first chart (memory.available) sits below the verdict strip: its line, thresholds, markers.
    assert.ok(countColour(png, AVAILABLE_BLUE, 300, 600) > 2000, "the memory.available line is drawn");
    assert.ok(
      countColour(png, HARD_RED, 300, 600) > 500,
      "the hard threshold and eviction markers are drawn",
    );
    // The dashed soft threshold is thin and antialiased: orange of any strength, not the exact colour.
    assert.ok(countMatching(png, 300, 600, isOrange) > 200, "the soft threshold is drawn");
    // Nothing but charts is that blue: the page without its SVG has none of it.
    const page = readFileSync(report, "utf8").replace(/<svg[\s\S]*?<\/svg>/g, "");
    const bare = join(dir, "bare.html");
    writeFileSync(bare, page);
    const barePng = screenshot(CHROMIUM ?? "", bare, join(dir, "bare.png"), 1400);
    assert.equal(countColour(barePng, AVAILABLE_BLUE, 300, 1400), 0, "without the charts, no line");

    const whole = screenshot(CHROMIUM ?? "", report, join(dir, "whole.png"), 5200);
    for (const layer of LAYERS)
      assert.ok(countColour(whole, layer, 2000, 5200, 6) > 1000, `pod layer ${layer.join(",")} is drawn`);
  });
});
