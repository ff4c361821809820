/**
 * The pod manifest directory as a source of pods: read every `*.yaml`, `*.yml` and `*.json` file,
 * watch the directory (fs.watch, debounced, with a periodic rescan as a safety net for missed
 * events), and report pods added, removed and changed by UID. A file that does not decode is an
 * error the daemon can log and expose, never a crash.
 */
import { lstatSync, statSync, watch, type FSWatcher } from "node:fs";
import { lstat, readdir, realpath } from "node:fs/promises";
import { dirname, extname, join } from "node:path";
import type { Issue } from "../core/issues.js";
import type { LoggerPort } from "../app/ports.js";
import { describeReadError } from "../formats/structured-file.js";
import { ManifestReadThread, type ManifestFileReader } from "./manifest-read-thread.js";
import { readManifestFile, type ManifestFileResult } from "./read-manifest-file.js";
import type { RunnablePod } from "./runnable-pod.js";

/** The problems of one file (or of the directory itself). */
export interface ManifestFileError {
  readonly file: string;
  readonly issues: readonly Issue[];
}

/** What the source reports; a throwing handler is logged and does not stop the source. */
export interface ManifestListener {
  added(pod: RunnablePod): void;
  removed(pod: RunnablePod): void;
  /** The manifest of a pod with this UID changed (any field). */
  changed(previous: RunnablePod, next: RunnablePod): void;
  /** The files with problems after a scan, whenever that list changed. */
  errors?(errors: readonly ManifestFileError[]): void;
}

export interface ManifestSourceOptions {
  readonly dir: string;
  readonly listener: ManifestListener;
  /** Quiet time after the last file event before rescanning (default 150 ms): editors write in bursts. */
  readonly debounceMs?: number;
  /** Full rescan period, whatever the watcher says (default 20 s, the kubelet's file-check frequency; 0 disables). */
  readonly rescanIntervalMs?: number;
  readonly logger?: LoggerPort;
  /**
   * How a file is read and decoded (default: in a worker thread of the source's own, bounded in
   * time and memory, so that no manifest can block or end the daemon: manifest-read-thread.ts).
   */
  readonly read?: ManifestFileReader;
}

/** What a scan of the directory found. */
export interface ManifestScan {
  /** By UID, in file-name order (the first file defining a UID wins). */
  readonly pods: ReadonlyMap<string, RunnablePod>;
  readonly errors: readonly ManifestFileError[];
}

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/** Manifest files: known extensions; dot files (editor swap and backup files) are skipped, as the kubelet does. */
export function isManifestFileName(name: string): boolean {
  return !name.startsWith(".") && EXTENSIONS.has(extname(name).toLowerCase());
}

/**
 * Fingerprints already taken, by pod object: an unchanged file hands out the pods it decoded to
 * before, so a rescan of 110 unchanged manifests serialises none of them again.
 */
const fingerprints = new WeakMap<RunnablePod, string>();

/** JSON with bigints as strings: a stable fingerprint of a decoded pod. */
export function podFingerprint(pod: RunnablePod): string {
  let print = fingerprints.get(pod);
  if (print === undefined) {
    print = JSON.stringify(pod, (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value));
    fingerprints.set(pod, print);
  }
  return print;
}

interface FileState {
  readonly pods: readonly RunnablePod[];
  readonly issues: readonly Issue[];
  /** What the file decoded to, and the stat it had then: an unchanged file is not parsed again. */
  readonly read: ManifestFileResult;
  readonly stamp: string | undefined;
}

/**
 * A file's identity and version: device, inode, size, modification and change times (ns). Any write,
 * rename over it or replacement changes one of them; a rescan of 110 unchanged manifests then costs
 * 110 stat calls instead of 110 YAML parses (most of the daemon's idle CPU on a full node). Taken
 * with lstat for a file listed as regular (one call tells its version and that it is still no link),
 * through the link for a link. Synchronously: a stat is a few microseconds of metadata lookup, while
 * an asynchronous one is a round trip through libuv's pool that wakes two threads, and a thread
 * wake costs far more CPU than the stat itself: one per file every rescan made up much of an idle
 * daemon's main-thread wakes (docs/benchmarks.md, "Figures behind design choices").
 */
function fileStamp(file: string, follow: boolean): { stamp?: string; link: boolean } {
  try {
    const s = follow ? statSync(file, { bigint: true }) : lstatSync(file, { bigint: true });
    if (s.isSymbolicLink()) return { link: true };
    return { stamp: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, link: false };
  } catch {
    return { link: false }; // Unreadable: readManifestFile says why.
  }
}

async function realpathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * The refusal of a manifest that is a symbolic link leading out of the manifest directory, or
 * undefined when `file` is not such a link. Such a link could make the daemon read (and print in its
 * errors) any file root can read; a link within the directory is followed.
 */
async function linkOutside(file: string, realDir: string | undefined): Promise<Issue | undefined> {
  try {
    if (!(await lstat(file)).isSymbolicLink()) return undefined;
  } catch {
    return undefined; // Gone meanwhile: reading it says so.
  }
  const target = await realpathOrUndefined(file);
  if (target !== undefined && realDir !== undefined && dirname(target) === realDir) return undefined;
  return {
    severity: "error",
    path: "",
    code: "symlink-outside",
    message: `a symbolic link ${target === undefined ? "that leads nowhere" : `to ${target}`}, outside the manifest directory: not read (copy the manifest into the directory instead)`,
    file,
  };
}

/** `read(file)`, whose failure (a reader is not to fail) is that file's error, not the scan's. */
async function readSafely(read: ManifestFileReader, file: string): Promise<ManifestFileResult> {
  try {
    return await read(file);
  } catch (error) {
    const message = `the file cannot be read: ${error instanceof Error ? error.message : String(error)}`;
    return {
      file,
      pods: [],
      issues: [{ severity: "error", path: "", code: "manifest-unreadable", message, file }],
    };
  }
}

/**
 * Reads the directory once. `previous` holds each file's last good pods: while a file has errors,
 * pods it held before and no longer decodes are kept (a half-saved edit must not kill a running
 * pod); deleting the file removes them. The kubelet's file source drops such pods instead. Files
 * are read with `read` (default: on this thread; the daemon's source reads in a worker).
 */
export async function scanManifestDir(
  dir: string,
  previous: ReadonlyMap<string, FileState> = new Map(),
  read: ManifestFileReader = readManifestFile,
): Promise<{ scan: ManifestScan; files: Map<string, FileState> }> {
  const files = new Map<string, FileState>();
  const errors: ManifestFileError[] = [];
  // With whether each is a link: only a link needs an lstat of its own (see linkOutside).
  let entries: { readonly name: string; readonly link: boolean }[];
  try {
    entries = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && isManifestFileName(e.name))
      .map((e) => ({ name: e.name, link: e.isSymbolicLink() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const { code, message } = describeReadError(error);
    const issue: Issue = {
      severity: "error",
      path: "",
      code,
      message: `manifest directory: ${message}`,
      file: dir,
    };
    return { scan: { pods: new Map(), errors: [{ file: dir, issues: [issue] }] }, files };
  }
  // Pass 1: each file's pods (unchanged files are not parsed again).
  const found: {
    file: string;
    stamp: string | undefined;
    result: ManifestFileResult;
    pods: RunnablePod[];
    issues: Issue[];
  }[] = [];
  const realDir = await realpathOrUndefined(dir);
  // Every read is asked for before the first is awaited: a reader in a worker goes from one file to
  // the next without waiting for this thread to take each answer.
  const reads: {
    file: string;
    stamp: string | undefined;
    before: FileState | undefined;
    result: ManifestFileResult | Promise<ManifestFileResult>;
  }[] = [];
  for (const { name, link } of entries) {
    const file = join(dir, name);
    // A file listed as regular is stamped with lstat, which also says whether it became a link since.
    const listed = link ? undefined : fileStamp(file, false);
    const isLink = link || listed?.link === true;
    const outside = isLink ? await linkOutside(file, realDir) : undefined;
    const stamp = outside !== undefined ? undefined : isLink ? fileStamp(file, true).stamp : listed?.stamp;
    const before = previous.get(file);
    const result =
      outside !== undefined
        ? { file, pods: [], issues: [outside] }
        : stamp !== undefined && before?.stamp === stamp
          ? before.read
          : readSafely(read, file);
    reads.push({ file, stamp, before, result });
  }
  for (const { file, stamp, before, result: reading } of reads) {
    const result = await reading;
    const issues = [...result.issues];
    let filePods = [...result.pods];
    if (issues.some((i) => i.severity === "error")) {
      const kept = (before?.pods ?? []).filter((old) => !filePods.some((p) => p.uid === old.uid));
      filePods = [...filePods, ...kept];
    }
    // A file read again for a reason of the moment is not stamped: the next scan reads it again.
    found.push({ file, stamp: result.retry === true ? undefined : stamp, result, pods: filePods, issues });
  }
  // Pass 2: one pod per namespace/name (derived UIDs are made from it). A pod defined twice keeps
  // the file it runs from (the last scan's); a new one goes to the first file in name order. The
  // other file gets an error and its definition is ignored: a second manifest never replaces a
  // running pod.
  const ranFrom = new Map<string, string>();
  for (const [file, state] of previous) for (const pod of state.pods) ranFrom.set(pod.key, file);
  const byKey = new Map<string, { file: string; pod: RunnablePod }>();
  for (const { file, pods: filePods } of found) {
    for (const pod of filePods) {
      const held = byKey.get(pod.key);
      if (held === undefined || (held.file !== ranFrom.get(pod.key) && file === ranFrom.get(pod.key)))
        byKey.set(pod.key, { file, pod });
    }
  }
  const pods = new Map<string, RunnablePod>();
  const owner = new Map<string, string>();
  for (const { file, stamp, result, pods: filePods, issues } of found) {
    const accepted: RunnablePod[] = [];
    for (const pod of filePods) {
      const first = owner.get(pod.uid);
      const keyHolder = byKey.get(pod.key);
      if (keyHolder !== undefined && keyHolder.pod !== pod) {
        issues.push({
          severity: "error",
          path: "",
          code: "duplicate-pod",
          message: `pod ${pod.key} is already defined in ${keyHolder.file}: ignored here (${ranFrom.get(pod.key) === keyHolder.file ? "the running pod is left alone" : "the first file in name order defines it"}); rename one of them`,
          file,
        });
        continue;
      }
      if (first !== undefined) {
        issues.push({
          severity: "error",
          path: "",
          code: "duplicate-pod",
          message: `pod ${pod.key} has uid ${pod.uid}, already defined in ${first}: ignored here`,
          file,
        });
        continue;
      }
      owner.set(pod.uid, file);
      pods.set(pod.uid, pod);
      accepted.push(pod);
    }
    // Only pods that decoded count as "last good" for the next scan.
    files.set(file, { pods: accepted, issues, read: result, stamp });
    if (issues.length > 0) errors.push({ file, issues });
  }
  return { scan: { pods, errors }, files };
}

/** Watches a manifest directory and reports pod changes by UID. */
export class ManifestSource {
  readonly #dir: string;
  readonly #listener: ManifestListener;
  readonly #debounceMs: number;
  readonly #rescanIntervalMs: number;
  readonly #logger: LoggerPort | undefined;
  readonly #read: ManifestFileReader;
  /** The worker the files are read in, when the source made its own. */
  readonly #thread: ManifestReadThread | undefined;
  #pods = new Map<string, RunnablePod>();
  #fingerprints = new Map<string, string>();
  /** Pods given to `start` as running that no scan has found a file for yet. */
  readonly #unconfirmed = new Set<string>();
  #files = new Map<string, FileState>();
  #errors: readonly ManifestFileError[] = [];
  #errorsKey = "[]";
  #watcher: FSWatcher | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #interval: NodeJS.Timeout | undefined;
  #scanning: Promise<void> | undefined;
  #again = false;
  #stopped = true;

  constructor(options: ManifestSourceOptions) {
    this.#dir = options.dir;
    this.#listener = options.listener;
    this.#debounceMs = options.debounceMs ?? 150;
    this.#rescanIntervalMs = options.rescanIntervalMs ?? 20_000;
    this.#logger = options.logger;
    if (options.read !== undefined) this.#read = options.read;
    else {
      this.#thread = new ManifestReadThread(options.logger !== undefined ? { logger: options.logger } : {});
      this.#read = this.#thread.reader;
    }
  }

  /**
   * Starts the thread files are read in ahead of {@link start}: the daemon calls it before the rest
   * of its start-up (HTTP, the loop thread), which the thread's own start-up then runs beside.
   */
  prepare(): void {
    this.#thread?.prestart();
  }

  /** The pods currently defined, in file order. */
  pods(): RunnablePod[] {
    return [...this.#pods.values()];
  }

  /** Files with problems, as of the last scan. */
  errors(): readonly ManifestFileError[] {
    return this.#errors;
  }

  /**
   * Scans once, then watches. The first scan reports every pod as added, except `running`: pods an
   * earlier daemon started (restored from the state directory). Those are reported against the
   * directory as it is now, as if the daemon had watched it meanwhile: removed when no file defines
   * them, changed when their manifest was edited, nothing when it was not.
   */
  async start(running: readonly RunnablePod[] = []): Promise<void> {
    for (const pod of running) {
      this.#pods.set(pod.uid, pod);
      this.#fingerprints.set(pod.uid, podFingerprint(pod));
      this.#unconfirmed.add(pod.uid);
    }
    this.#stopped = false;
    await this.rescan();
    if (this.#stopped) return;
    this.#watch();
    if (this.#rescanIntervalMs > 0) {
      this.#interval = setInterval(() => void this.rescan(), this.#rescanIntervalMs);
      this.#interval.unref();
    }
  }

  /** Stops watching; pods are not reported removed. */
  stop(): void {
    this.#stopped = true;
    this.#watcher?.close();
    this.#watcher = undefined;
    clearTimeout(this.#debounce);
    clearInterval(this.#interval);
    this.#thread?.close().catch(() => undefined);
  }

  /** Rescans now; concurrent requests coalesce into one more scan after the running one. */
  rescan(): Promise<void> {
    if (this.#scanning !== undefined) {
      this.#again = true;
      return this.#scanning;
    }
    this.#scanning = (async () => {
      try {
        do {
          this.#again = false;
          try {
            await this.#scanOnce();
          } catch (error) {
            // Files' problems are issues, never exceptions; should a scan fail all the same, the
            // pods stay as they are and the next scan tries again: never an unhandled rejection.
            this.#logger?.error({ dir: this.#dir, error: String(error) }, "manifest directory scan failed");
          }
        } while (this.#again && !this.#stopped);
      } finally {
        this.#scanning = undefined;
      }
    })();
    return this.#scanning;
  }

  #watch(): void {
    if (this.#watcher !== undefined || this.#stopped) return;
    try {
      this.#watcher = watch(this.#dir, { persistent: false }, () => this.#schedule());
      this.#watcher.on("error", (error) => {
        this.#logger?.warn(
          { dir: this.#dir, error: String(error) },
          "manifest directory watch failed; relying on periodic rescans",
        );
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch (error) {
      // A missing directory cannot be watched; the periodic rescan retries.
      this.#logger?.warn(
        { dir: this.#dir, error: String(error) },
        "cannot watch the manifest directory; relying on periodic rescans",
      );
    }
  }

  #schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => void this.rescan(), this.#debounceMs);
    this.#debounce.unref();
  }

  async #scanOnce(): Promise<void> {
    const { scan, files } = await scanManifestDir(this.#dir, this.#files, this.#read);
    // A scan that ended after stop (its reads answered "the daemon is stopping") changes nothing.
    if (this.#stopped) return;
    this.#files = files;
    const before = this.#pods;
    const oldPrints = this.#fingerprints;
    const fingerprints = new Map<string, string>();
    for (const [uid, pod] of scan.pods) fingerprints.set(uid, podFingerprint(pod));
    this.#pods = new Map(scan.pods);
    // A running pod no file has defined since the daemon started is kept while some file has
    // errors: that file may be its own, half saved (the scan's last-good pods cover only files this
    // daemon has read).
    const fileHasErrors = scan.errors.some((e) => e.issues.some((i) => i.severity === "error"));
    for (const [uid, pod] of before) {
      if (scan.pods.has(uid)) {
        this.#unconfirmed.delete(uid);
      } else if (this.#unconfirmed.has(uid) && fileHasErrors) {
        this.#pods.set(uid, pod);
        fingerprints.set(uid, oldPrints.get(uid) ?? podFingerprint(pod));
      } else {
        this.#unconfirmed.delete(uid);
        this.#emit(() => this.#listener.removed(pod), "removed", pod);
      }
    }
    this.#fingerprints = fingerprints;
    for (const [uid, pod] of scan.pods) {
      const old = before.get(uid);
      if (old === undefined) this.#emit(() => this.#listener.added(pod), "added", pod);
      else if (oldPrints.get(uid) !== fingerprints.get(uid))
        this.#emit(() => this.#listener.changed(old, pod), "changed", pod);
    }
    const errorsKey = JSON.stringify(scan.errors);
    this.#errors = scan.errors;
    if (errorsKey !== this.#errorsKey) {
      this.#errorsKey = errorsKey;
      if (this.#listener.errors !== undefined) {
        try {
          this.#listener.errors(scan.errors);
        } catch (error) {
          this.#logger?.error({ error: String(error) }, "manifest errors handler failed");
        }
      }
    }
    // A deleted directory leaves the watcher on a dead inode: drop it, and re-arm once it is back.
    const dirMissing = scan.errors.some((e) => e.file === this.#dir);
    if (dirMissing) {
      this.#watcher?.close();
      this.#watcher = undefined;
    } else if (this.#watcher === undefined) this.#watch();
  }

  #emit(call: () => void, what: string, pod: RunnablePod): void {
    try {
      call();
    } catch (error) {
      this.#logger?.error(
        { pod: pod.key, uid: pod.uid, error: String(error) },
        `manifest ${what} handler failed`,
      );
    }
  }
}
