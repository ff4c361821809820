/**
 * `evictd run`'s page at `/`, opened in headless chromium against a real daemon (real pods in
 * cgroups): a soft threshold holds MemoryPressure without evicting, so the page must show the
 * condition, the signal against its thresholds, the pod that would go next (the one holding the
 * memory), and the chart of the last minutes; loaded again a few seconds later it shows a later
 * state (more steps, a later time), and it tells the browser to reload itself.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PNG } from "pngjs";
import {
  condition,
  E2E_SKIP,
  holdMemory,
  IDLE,
  podManifest,
  scaled,
  sleep,
  stopAndCheckClean,
  TestNode,
  type Daemon,
} from "../harness/node-harness.js";

function findChromium(): string | undefined {
  const r = spawnSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], {
    encoding: "utf8",
  });
  return r.status === 0 && r.stdout.trim() !== "" ? r.stdout.trim() : undefined;
}

const CHROMIUM = findChromium();
const SKIP =
  E2E_SKIP || (CHROMIUM === undefined ? "no chromium installed (apt-get install chromium)" : false);
if (SKIP !== false) console.log(`# live page in chromium skipped: ${SKIP}`);

const BROWSER = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--hide-scrollbars",
  "--window-size=1100,2400",
];

/** The DOM chromium built from the page (after parsing and layout). */
function dumpDom(url: string): string {
  const r = spawnSync(CHROMIUM ?? "", [...BROWSER, "--dump-dom", url], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe("evictd run's live page in headless chromium", { skip: SKIP }, () => {
  let node: TestNode | undefined;
  let daemon: Daemon | undefined;
  const dir = mkdtempSync(join(tmpdir(), "evictd-live-page-"));

  before(
    async () => {
      node = await TestNode.create("live");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: {
          evictionHard: { "memory.available": "50Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
          evictionSoft: { "memory.available": "200Mi" },
          evictionSoftGracePeriod: { "memory.available": "10m" },
        },
      });
      await node.addPod(
        podManifest({
          name: "hog",
          containers: [{ name: "hog", command: holdMemory(360), requests: { memory: "16Mi" } }],
        }),
      );
      await node.addPod(podManifest({ name: "idle", containers: [{ name: "idle", command: IDLE }] }));
      daemon = await node.start();
      await daemon.waitForStatus(
        "MemoryPressure",
        (s) => (condition(s, "MemoryPressure") === "True" ? s : undefined),
        15_000,
      );
    },
    { timeout: scaled(60_000) },
  );

  after(async () => {
    try {
      if (node !== undefined && daemon !== undefined) await stopAndCheckClean(node, daemon);
    } finally {
      await node?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("shows the condition, the signals, the next pod to go and the chart, and updates", async () => {
    const url = `${daemon?.url ?? ""}/`;
    const first = dumpDom(url);
    assert.match(first, /<meta http-equiv="refresh" content="2">/, "the page reloads itself");
    assert.match(first, /MemoryPressure True/);
    assert.match(first, /<td>memory.available<\/td>/);
    assert.match(first, /soft 200Mi: met, grace \d+s left/);
    assert.match(first, /<code id="next-pod">default\/hog<\/code>/, "the pod holding the memory goes next");
    assert.match(first, /<figure class="chart" data-signal="memory.available"/);
    const updated = (dom: string): string => /<time id="updated">([^<]+)<\/time>/.exec(dom)?.[1] ?? "";
    const points = (dom: string): number =>
      (
        /<figure class="chart" data-signal="memory.available"[\s\S]*?<path class="avail" d="([^"]+)"/.exec(
          dom,
        )?.[1] ?? ""
      )
        .split(/[ML]/)
        .filter((p) => p !== "").length;

    await sleep(3000);
    const second = dumpDom(url);
    assert.ok(updated(second) > updated(first), `updated ${updated(first)} → ${updated(second)}`);
    assert.ok(points(second) > points(first), `chart points ${points(first)} → ${points(second)}`);

    // Drawn, not just written: the chart's line is in the pixels.
    const shot = join(dir, "live.png");
    const r = spawnSync(CHROMIUM ?? "", [...BROWSER, `--screenshot=${shot}`, url], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const png = PNG.sync.read(readFileSync(shot));
    let blue = 0;
    for (let i = 0; i < png.data.length; i += 4)
      if (
        Math.abs((png.data[i] ?? 0) - 0x1f) < 12 &&
        Math.abs((png.data[i + 1] ?? 0) - 0x5f) < 12 &&
        Math.abs((png.data[i + 2] ?? 0) - 0xbf) < 12
      )
        blue++;
    assert.ok(blue > 200, `${blue} pixels of the observed-available line`);
  });
});
