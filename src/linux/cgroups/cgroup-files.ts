/** Reading and writing cgroupfs interface files, every failure an AdapterError naming the file and the reason. */
import { constants } from "node:fs";
import { access, mkdir, open, readFile, readdir, rmdir } from "node:fs/promises";
import { AdapterError, errnoCode } from "../../errors.js";

/**
 * The filesystem operations the drivers need: a structural subset so that tests can stand in a
 * fake kernel over a temp directory (cgroupfs creates interface files on mkdir and lets rmdir
 * remove a directory full of them; a plain filesystem does neither).
 */
export interface CgroupFs {
  readFile(path: string): Promise<string>;
  /** One `write(2)` to an existing file, opened write-only without O_CREAT: the kernel parses each write on its own. */
  writeFile(path: string, data: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  /** Names of the subdirectories (child cgroups) of `path`. */
  subdirectories(path: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
}

/** The real thing. */
export const hostCgroupFs: CgroupFs = {
  readFile: (path) => readFile(path, "utf8"),
  async writeFile(path, data) {
    const handle = await open(path, constants.O_WRONLY);
    try {
      await handle.write(data);
    } finally {
      await handle.close();
    }
  },
  async mkdir(path) {
    await mkdir(path);
  },
  rmdir: (path) => rmdir(path),
  async subdirectories(path) {
    return (await readdir(path, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  },
  async exists(path) {
    try {
      await access(path);
      return true;
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return false;
      throw error;
    }
  },
};

/** Errno → [code, reason, hint]. Anything else becomes `cgroup-io` with the system message. */
const ERRNO: Readonly<Record<string, readonly [string, string, string | undefined]>> = {
  ENOENT: [
    "cgroup-not-found",
    "no such file or directory",
    "is the controller mounted (v1) or enabled in the parent's cgroup.subtree_control (v2)?",
  ],
  // A file of a cgroup removed while it is being read (rmdir raced a read): gone, like ENOENT.
  ENODEV: ["cgroup-not-found", "the cgroup was removed", undefined],
  EACCES: [
    "cgroup-permission-denied",
    "permission denied",
    "run as root, or delegate the cgroup to this user",
  ],
  EPERM: [
    "cgroup-permission-denied",
    "operation not permitted",
    "run as root, or delegate the cgroup to this user",
  ],
  EROFS: [
    "cgroup-read-only",
    "read-only file system",
    "cgroupfs is mounted read-only (as in most containers): run on the host or mount it read-write",
  ],
  EBUSY: ["cgroup-busy", "device or resource busy", undefined],
  EEXIST: ["cgroup-exists", "already exists", undefined],
  ENOTEMPTY: ["cgroup-busy", "directory not empty", undefined],
  EINVAL: ["cgroup-io", "invalid argument (the kernel rejected the value)", undefined],
  ESRCH: ["cgroup-io", "no such process", undefined],
  EOPNOTSUPP: ["cgroup-io", "operation not supported", undefined],
};

/** Wraps a failed file operation: `<what> <path>: <reason>`. */
export function fileError(what: string, path: string, error: unknown): AdapterError {
  if (error instanceof AdapterError) return error;
  const errno = errnoCode(error);
  const known = errno === undefined ? undefined : ERRNO[errno];
  const [code, reason, hint] = known ?? [
    "cgroup-io",
    error instanceof Error ? error.message : String(error),
    undefined,
  ];
  const options = hint === undefined ? { cause: error } : { cause: error, hint };
  return new AdapterError(
    code,
    `cannot ${what} ${path}: ${reason}${errno !== undefined && known !== undefined ? ` (${errno})` : ""}`,
    options,
  );
}

/** Interface-file access with typed errors and the kernel's value formats. */
export class CgroupFiles {
  readonly fs: CgroupFs;

  constructor(fs: CgroupFs) {
    this.fs = fs;
  }

  async read(path: string): Promise<string> {
    try {
      return await this.fs.readFile(path);
    } catch (error) {
      throw fileError("read", path, error);
    }
  }

  async write(path: string, value: string): Promise<void> {
    try {
      await this.fs.writeFile(path, value);
    } catch (error) {
      throw fileError(`write ${JSON.stringify(value)} to`, path, error);
    }
  }

  async mkdir(path: string): Promise<void> {
    try {
      await this.fs.mkdir(path);
    } catch (error) {
      throw fileError("create cgroup", path, error);
    }
  }

  async rmdir(path: string): Promise<void> {
    try {
      await this.fs.rmdir(path);
    } catch (error) {
      throw fileError("remove cgroup", path, error);
    }
  }

  /** Child cgroup names, or [] when `path` is gone (a subtree being torn down concurrently). */
  async subdirectories(path: string): Promise<string[]> {
    try {
      return await this.fs.subdirectories(path);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return [];
      throw fileError("list", path, error);
    }
  }

  /** Whether `path` exists (a cgroup directory or an interface file). */
  async exists(path: string): Promise<boolean> {
    try {
      return await this.fs.exists(path);
    } catch (error) {
      throw fileError("look up", path, error);
    }
  }

  /** A file holding one unsigned integer (`memory.current`, `pids.current`, `memory.failcnt`). */
  async readInteger(path: string): Promise<bigint> {
    return parseInteger(path, (await this.read(path)).trim());
  }

  /** A limit file: an integer, or `max` (v2, pids) → undefined. */
  async readLimit(path: string): Promise<bigint | undefined> {
    const text = (await this.read(path)).trim();
    return text === "max" ? undefined : parseInteger(path, text);
  }

  /** A flat-keyed file of `key value` lines (`memory.stat`, `memory.events`, `memory.oom_control`, `pids.events`). */
  async readKeyed(path: string): Promise<ReadonlyMap<string, bigint>> {
    return parseFlatKeyed(path, await this.read(path));
  }

  /** A `cgroup.procs` file: one pid per line. */
  async readPids(path: string): Promise<number[]> {
    const text = await this.read(path);
    const out: number[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      out.push(Number(parseInteger(path, line.trim())));
    }
    return out;
  }
}

/**
 * The text of a flat-keyed file (`key value` lines: `memory.stat`, `memory.events`), read from
 * `path`: every key with its value; throws `cgroup-parse` naming the file at a line of another shape.
 */
export function parseFlatKeyed(path: string, text: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const [key, value, extra] = line.trim().split(/\s+/);
    if (key === undefined || value === undefined || extra !== undefined) {
      throw new AdapterError(
        "cgroup-parse",
        `cannot parse ${path}: line ${JSON.stringify(line)} is not "key value"`,
      );
    }
    out.set(key, parseInteger(path, value, key));
  }
  return out;
}

/** Parses a non-negative decimal integer, or throws `cgroup-parse` naming the file (and key). */
function parseInteger(path: string, text: string, key?: string): bigint {
  if (!/^[0-9]+$/.test(text)) {
    const where = key === undefined ? path : `${path} (${key})`;
    throw new AdapterError(
      "cgroup-parse",
      `cannot parse ${where}: ${JSON.stringify(text)} is not a non-negative integer`,
    );
  }
  return BigInt(text);
}

/** A counter from a flat-keyed file as a number; 0 when the kernel does not report the key. */
export function counter(values: ReadonlyMap<string, bigint>, key: string): number {
  return Number(values.get(key) ?? 0n);
}
