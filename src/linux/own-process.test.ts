/**
 * The daemon's own figures against what the kernel and the runtime say of this very process by
 * other routes: a file opened is one descriptor more, memory touched is resident, CPU spent is
 * counted, the start time is the runtime's, the limits are the ones a child process inherits.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { OwnProcessReader, ownProcessFigures } from "./own-process.js";
import { parseProcStat, RLIMIT_UNLIMITED } from "./procfs.js";

const MiB = 1024 * 1024;

function reader(): OwnProcessReader {
  const r = OwnProcessReader.open();
  assert.ok(r !== undefined, "this process's figures cannot be read from /proc");
  return r;
}

function figures(r: OwnProcessReader): NonNullable<ReturnType<OwnProcessReader["read"]>> {
  const f = r.read();
  assert.ok(f !== undefined);
  return f;
}

describe("OwnProcessReader (this process, live)", () => {
  test("a file opened is one descriptor more, closed one less", () => {
    const r = reader();
    const before = figures(r).openFds;
    const fd = openSync("/proc/self/status", "r");
    try {
      assert.equal(figures(r).openFds, before + 1);
    } finally {
      closeSync(fd);
    }
    assert.equal(figures(r).openFds, before);
  });

  test("64 MiB written are resident", () => {
    const r = reader();
    const before = figures(r).residentBytes;
    const block = Buffer.alloc(64 * MiB, 1);
    const after = figures(r).residentBytes;
    assert.ok(after - before >= 60 * MiB, `resident ${before} → ${after} bytes`);
    assert.ok(figures(r).virtualBytes >= after);
    assert.equal(block[block.length - 1], 1);
  });

  test("CPU spent is counted as the kernel counts it in /proc/self/stat (to its clock ticks)", () => {
    const r = reader();
    const ticks = (): number => {
      const stat = parseProcStat(readFileSync("/proc/self/stat", "utf8"));
      assert.ok(stat !== undefined);
      return stat.cpuTicks;
    };
    const total = (f: { cpuUserSeconds: number; cpuSystemSeconds: number }): number =>
      f.cpuUserSeconds + f.cpuSystemSeconds;
    const [before, ticksBefore] = [figures(r), ticks()];
    const until = performance.now() + 300;
    let spins = 0;
    while (performance.now() < until) spins++;
    const [after, ticksAfter] = [figures(r), ticks()];
    const spent = total(after) - total(before);
    const kernel = (ticksAfter - ticksBefore) / 100;
    assert.ok(spent > 0.05, `${spent} s of CPU for 0.3 s of spinning (${spins} spins)`);
    // Ticks are whole hundredths of a second, and the two are read one after the other.
    assert.ok(Math.abs(spent - kernel) <= 0.04, `${spent} s here, ${kernel} s in /proc/self/stat`);
  });

  test("the start time is the runtime's own (within seconds: the boot time is in whole seconds)", () => {
    const started = Date.now() / 1000 - process.uptime();
    const f = figures(reader());
    // The kernel's boot time is whole seconds (up to 1 s off), and Node starts counting its uptime
    // after exec and its own start-up, which a loaded machine or an emulated CPU stretches; any
    // other start (the boot, the epoch, a child's) is off by far more.
    assert.ok(Math.abs(f.startTimeSeconds - started) < 3, `${f.startTimeSeconds} against ${started}`);
  });

  test("the limits are the soft limits a child inherits", () => {
    const f = figures(reader());
    const shell = (what: string): number => {
      const text = execFileSync("sh", ["-c", `ulimit -S ${what}`], { encoding: "utf8" }).trim();
      // The shell reports the address space in KiB.
      return text === "unlimited" ? RLIMIT_UNLIMITED : Number(text) * (what === "-v" ? 1024 : 1);
    };
    assert.equal(f.maxFds, shell("-n"));
    assert.equal(f.maxVirtualBytes, shell("-v"));
  });

  test("the source the metrics take reads afresh on every call", () => {
    const source = ownProcessFigures();
    assert.ok(source !== undefined);
    const fd = openSync("/proc/self/status", "r");
    const withFile = source();
    closeSync(fd);
    const without = source();
    assert.ok(withFile !== undefined && without !== undefined);
    assert.equal(without.openFds, withFile.openFds - 1);
  });
});
