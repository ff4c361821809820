/**
 * Compressed JSONL scenarios, both ways (docs/replay-format.md, "compressed traces"): a recording
 * named `*.gz` is gzip, `*.br` brotli (a 16 MiB window: one sample of a 110-pod node repeats most
 * of the one before, which gzip's 32 KiB window cannot see, so a day of it takes much less room in
 * brotli; docs/benchmarks.md, "A day of a node as a recording"). Gzip is also recognised by its
 * magic bytes, on stdin too.
 *
 * Written line by line, each line flushed as it is written, so a recording stopped at any moment
 * holds every line written before; read as a stream. A stream that ends mid-way (the recorder was
 * killed) is read up to its last complete line, and says so (`truncated()`), instead of failing.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, rmSync, writeSync } from "node:fs";
import { Readable } from "node:stream";
import {
  constants,
  createBrotliCompress,
  createBrotliDecompress,
  createGunzip,
  createGzip,
  type BrotliCompress,
  type Gzip,
} from "node:zlib";
import { AdapterError, errnoCode } from "../../errors.js";

export type Compression = "gzip" | "brotli";

/** The compression a scenario's name (or, for gzip, its first bytes) says it has; undefined for plain text. */
export function compressionOf(name: string, head?: Uint8Array): Compression | undefined {
  if (/\.gz$/i.test(name)) return "gzip";
  if (/\.br$/i.test(name)) return "brotli";
  if (head !== undefined && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
  return undefined;
}

/** A decompressed byte stream and whether it ended before the compressed stream did. */
export interface Decompressed {
  readonly chunks: AsyncIterable<Uint8Array>;
  /** Whether the input stopped mid-stream (known once `chunks` is exhausted). */
  truncated(): boolean;
}

const NEWLINE = 0x0a;

/**
 * Decompresses `input`. Bytes after the last newline are held back until more arrive, so a stream
 * cut short yields only whole lines; the torn rest is dropped and `truncated()` says so. Corrupt
 * data (not a truncation) rejects, as a read error.
 */
export function decompress(
  input: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  kind: Compression,
): Decompressed {
  let truncated = false;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    // Large output chunks: at the default 16 KiB, per-chunk overhead was most of decompressing's
    // time (docs/benchmarks.md, "Figures behind design choices").
    const inflater =
      kind === "gzip" ? createGunzip({ chunkSize: 1 << 20 }) : createBrotliDecompress({ chunkSize: 1 << 20 });
    // Copies: a file reader may reuse one buffer for every chunk, while zlib may still hold the last.
    async function* copies(): AsyncGenerator<Buffer> {
      for await (const chunk of input) yield Buffer.from(chunk);
    }
    const source = Readable.from(copies(), { objectMode: false });
    source.on("error", (e) => inflater.destroy(e));
    source.pipe(inflater);
    let pending: Buffer = Buffer.alloc(0);
    try {
      for await (const chunk of inflater as AsyncIterable<Buffer>) {
        const joined = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        const end = joined.lastIndexOf(NEWLINE);
        if (end === -1) {
          pending = joined;
          continue;
        }
        pending = joined.subarray(end + 1);
        yield joined.subarray(0, end + 1);
      }
    } catch (error) {
      // zlib's "unexpected end of file": the compressed stream stops mid-way.
      if ((error as NodeJS.ErrnoException).code !== "Z_BUF_ERROR" && !isBrotliTruncation(error)) throw error;
      truncated = true;
      return;
    } finally {
      source.destroy();
    }
    if (pending.length > 0) yield pending;
  }
  return { chunks: chunks(), truncated: () => truncated };
}

function isBrotliTruncation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e.code === "ERR_BROTLI_DECOMPRESSION_FAILED" && /unexpected end/i.test(String(e.message));
}

/** A trace file written one line at a time, plain or compressed by its name. */
export interface TraceFile {
  /**
   * Appends one whole line (with its newline). When the file cannot take it (a full disk, an I/O
   * error), throws AdapterError `trace-write` naming the file, and every later write throws it too.
   */
  write(line: string): void;
  /** Resolves once every line written so far is on disk (a writer far ahead of zlib waits on it). */
  flushed(): Promise<void>;
  /**
   * Ends the file (the compressed stream's trailer) and closes it. A file that never got a whole
   * line in is removed. Throws the write failure only if no write reported it already.
   */
  close(): Promise<void>;
}

/** A write that failed: the file, the reason, and what is left of it. */
function writeFailure(path: string, error: unknown, kept: number, regular: boolean): AdapterError {
  const code = errnoCode(error);
  const reason =
    code === "ENOSPC"
      ? "no space left on the device"
      : code === "EDQUOT"
        ? "the disk quota is exceeded"
        : code === "EFBIG"
          ? "the file is too large for its file system"
          : error instanceof Error
            ? error.message
            : String(error);
  return new AdapterError(
    "trace-write",
    `cannot write the trace ${path}: ${reason} (${kept > 0 ? `its first ${kept} line(s), written whole before, are kept: a valid trace` : regular ? "nothing was written; the file is removed" : "nothing was written"})`,
    { cause: error },
  );
}

/** Writes all of `bytes` (a full disk can take part of a write before it refuses the rest). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

/**
 * Creates (or truncates) `path` for a trace. Plain files are appended to synchronously; a
 * compressed one goes through a zlib stream whose output is written synchronously as it comes,
 * flushed after every line. A plain file whose write fails part-way is cut back to its last whole
 * line; a compressed one ends where the failure came, which a reader takes as a cut-short stream
 * (see {@link decompress}).
 */
export function createTraceFile(path: string): TraceFile {
  const kind = compressionOf(path);
  const fd = openSync(path, "w");
  // Only a regular file is cut back or removed; a device or a pipe is left as it is.
  const regular = fstatSync(fd).isFile();
  let failure: AdapterError | undefined;
  let reported = false;
  /** Whole lines in the file (compressed: flushed whole). */
  let lines = 0;
  const fail = (error: unknown): AdapterError => {
    failure ??= error instanceof AdapterError ? error : writeFailure(path, error, lines, regular);
    return failure;
  };
  const report = (error: AdapterError): never => {
    reported = true;
    throw error;
  };
  const finish = (): void => {
    closeSync(fd);
    if (failure !== undefined && lines === 0 && regular) rmSync(path, { force: true });
  };
  if (kind === undefined) {
    let size = 0;
    return {
      write: (line) => {
        if (failure !== undefined) report(failure);
        const bytes = Buffer.from(line, "utf8");
        try {
          writeAll(fd, bytes);
        } catch (error) {
          const failed = fail(error);
          try {
            if (regular) ftruncateSync(fd, size);
          } catch {
            // The failing disk refused this too: the torn line stays, and a replay points at it.
          }
          report(failed);
        }
        size += bytes.length;
        lines++;
      },
      flushed: () => Promise.resolve(),
      close: () => {
        finish();
        if (failure !== undefined && !reported) report(failure);
        return Promise.resolve();
      },
    };
  }
  const deflater: Gzip | BrotliCompress =
    kind === "gzip"
      ? createGzip({ level: 6 })
      : createBrotliCompress({
          params: {
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_QUALITY]: 5,
            [constants.BROTLI_PARAM_LGWIN]: 24,
          },
        });
  const flushMode = kind === "gzip" ? constants.Z_SYNC_FLUSH : constants.BROTLI_OPERATION_FLUSH;
  deflater.on("data", (chunk: Buffer) => {
    if (failure !== undefined) return;
    try {
      writeAll(fd, chunk);
    } catch (error) {
      fail(error);
    }
  });
  const finished = new Promise<void>((resolve, reject) => {
    deflater.once("end", resolve);
    deflater.once("error", reject);
  });
  let lastFlush: Promise<void> = Promise.resolve();
  return {
    write: (line) => {
      if (failure !== undefined) report(failure);
      deflater.write(line);
      lastFlush = new Promise((resolve) =>
        deflater.flush(flushMode, () => {
          if (failure === undefined) lines++;
          resolve();
        }),
      );
    },
    flushed: () => lastFlush,
    close: async () => {
      deflater.end();
      try {
        await finished;
      } finally {
        finish();
      }
      if (failure !== undefined && !reported) report(failure);
    },
  };
}
