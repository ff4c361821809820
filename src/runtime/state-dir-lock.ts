/**
 * One daemon per state directory: `<stateDir>/evictd.lock`, held with flock(2) for the daemon's
 * life and naming its holder (pid, node, address) for the refusal a second daemon gets. The kernel
 * drops the lock when its holder dies, however it dies, so no stale lock ever needs removing.
 */
import { existsSync, ftruncateSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { AdapterError } from "../errors.js";
import { tryLockExclusive, type HeldLock } from "../linux/file-lock.js";
import { readCmdline } from "../linux/procfs.js";

export const LOCK_FILE = "evictd.lock";

/** Who holds the state directory, as written into the lock file. */
export interface StateDirHolder {
  readonly pid: number;
  readonly node: string;
  readonly nodeFile: string;
}

/** The state directory's lock, held; `undo` releases it and removes the lock file if this created it. */
export interface StateDirLock {
  readonly lock: HeldLock;
  undo(): void;
}

/**
 * Locks `stateDir` for this process and writes who holds it; throws AdapterError `state-dir-locked`
 * (exit 3) naming the daemon that holds it already.
 */
export function lockStateDir(stateDir: string, holder: StateDirHolder): StateDirLock {
  const file = join(stateDir, LOCK_FILE);
  const existed = existsSync(file);
  let attempt;
  try {
    attempt = tryLockExclusive(file, "file");
  } catch (cause) {
    throw new AdapterError("state-dir", `cannot lock ${file}: ${String(cause)}`, { cause });
  }
  if (!attempt.held) {
    throw new AdapterError(
      "state-dir-locked",
      `stateDir ${stateDir} is in use by ${describeHolder(file, attempt.holderPid)}`,
      {
        hint: "one evictd per node: stop that daemon first, or give this node file its own stateDir and name",
      },
    );
  }
  const text = `${JSON.stringify(holder)}\n`;
  ftruncateSync(attempt.lock.fd, 0);
  writeSync(attempt.lock.fd, text, 0, "utf8");
  const lock = attempt.lock;
  return {
    lock,
    undo: () => {
      if (!existed) rmSync(file, { force: true });
      lock.release();
    },
  };
}

function describeHolder(file: string, pid: number | undefined): string {
  let written: Partial<StateDirHolder> = {};
  try {
    written = JSON.parse(readFileSync(file, "utf8")) as Partial<StateDirHolder>;
  } catch {
    // Written by the holder as it started: may be empty for an instant.
  }
  const holderPid = pid ?? (typeof written.pid === "number" ? written.pid : undefined);
  if (holderPid === undefined) return "another process";
  const node = typeof written.node === "string" ? ` for node ${JSON.stringify(written.node)}` : "";
  const from = typeof written.nodeFile === "string" ? ` from ${written.nodeFile}` : "";
  const cmd = readCmdline(holderPid);
  return `another evictd (pid ${holderPid}${node}${from}${cmd !== undefined ? `: ${cmd}` : ""})`;
}
