/**
 * Exclusive advisory locks with flock(2) on a file or a directory, and who holds one (from
 * /proc/locks). The kernel drops a flock lock when the last descriptor of its open file goes, so a
 * daemon killed with SIGKILL never leaves a stale lock behind, unlike a pid file. Works on cgroupfs
 * directories too (the VFS's generic flock), which is how one node cgroup gets one daemon.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import koffi from "koffi";
import { AdapterError } from "../errors.js";
import { syscallError } from "./notify/eventfd.js";

/** flock(2) operations (asm-generic, the same on every Linux architecture). */
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** Another holder has it: flock with LOCK_NB fails with EWOULDBLOCK (== EAGAIN). */
const EWOULDBLOCK = 11;

type Flock = (fd: number, operation: number) => number;
let flock: Flock | undefined;

function bindFlock(): Flock {
  if (flock !== undefined) return flock;
  try {
    flock = koffi.load("libc.so.6").func("int flock(int fd, int operation)") as Flock;
    return flock;
  } catch (cause) {
    throw new AdapterError("ffi-unavailable", "cannot bind flock(2) in libc.so.6 through koffi", {
      cause,
      hint: "evictd run needs Linux with glibc",
    });
  }
}

/** A lock this process holds until {@link release} (or its exit). */
export interface HeldLock {
  readonly path: string;
  /** The descriptor the lock lives on: keep it open, and write to it when the lock is a file. */
  readonly fd: number;
  release(): void;
}

/** The outcome of {@link tryLockExclusive}: held, or held elsewhere (by `holderPid` when /proc/locks tells). */
export type LockAttempt =
  | { readonly held: true; readonly lock: HeldLock }
  | { readonly held: false; readonly holderPid: number | undefined };

/**
 * Takes an exclusive lock on `path` without waiting. A file is created when missing (mode 0644,
 * opened read-write so its holder can write who it is into it); a directory is opened read-only.
 */
export function tryLockExclusive(path: string, kind: "file" | "directory"): LockAttempt {
  const lockFn = bindFlock();
  const fd =
    kind === "directory"
      ? openSync(path, constants.O_RDONLY | constants.O_DIRECTORY)
      : openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  if (lockFn(fd, LOCK_EX | LOCK_NB) === 0) {
    let released = false;
    return {
      held: true,
      lock: {
        path,
        fd,
        release: () => {
          if (released) return;
          released = true;
          lockFn(fd, LOCK_UN);
          closeSync(fd);
        },
      },
    };
  }
  const errno = koffi.errno();
  try {
    if (errno !== EWOULDBLOCK) {
      const cause = syscallError("flock", errno);
      throw new AdapterError("lock-failed", `cannot lock ${path}: ${cause.message}`, { cause });
    }
    const { dev, ino } = fstatSync(fd, { bigint: true });
    return { held: false, holderPid: flockHolder(readProcLocks(), dev, ino) };
  } finally {
    closeSync(fd);
  }
}

function readProcLocks(): string {
  try {
    return readFileSync("/proc/locks", "utf8");
  } catch {
    return "";
  }
}

/**
 * The pid holding a FLOCK lock on the file `dev`/`ino`, from /proc/locks text, or undefined. Each
 * line reads `1: FLOCK  ADVISORY  WRITE 1234 00:2a:5678 0 EOF`: the device as major:minor in hex
 * (the kernel's `MAJOR(dev)`/`MINOR(dev)` of the 20-bit-minor encoding) and the inode in decimal.
 * Waiters (`->` lines) are skipped; a pid of -1 (a lock whose holder moved to another namespace)
 * counts as unknown.
 */
export function flockHolder(procLocks: string, dev: bigint, ino: bigint): number | undefined {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  for (const line of procLocks.split("\n")) {
    const m = /^\d+:\s+FLOCK\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    if (m === null) continue;
    const [, pid, maj, min, inode] = m;
    if (pid === undefined || maj === undefined || min === undefined || inode === undefined) continue;
    if (BigInt(`0x${maj}`) !== major || BigInt(`0x${min}`) !== minor || BigInt(inode) !== ino) continue;
    const n = Number(pid);
    return n > 0 ? n : undefined;
  }
  return undefined;
}
