/**
 * Compressed JSONL scenarios, both ways (docs/replay-format.md, "compressed traces"): a recording
 * named `*.gz` is gzip, `*.br` brotli (a 16 MiB window: one sample of a 110-pod node repeats most
 * of the one before, which gzip's 32 KiB window cannot see; a day is some 40 MB in brotli, 100 in
 * gzip). Gzip is also recognised by its magic bytes, on stdin too.
 *
 * Written line by line, each line flushed as it is written, so a recording stopped at any moment
 * holds every line written before; read as a stream. A stream that ends mid-way (the recorder was
 * killed) is read up to its last complete line, and says so (`truncated()`), instead of failing.
 */
import { closeSync, openSync, writeSync } from "node:fs";
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
    // Large output chunks: at the default 16 KiB, per-chunk overhead made decompressing 5x slower.
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
  /** Appends one whole line (with its newline). */
  write(line: string): void;
  /** Resolves once every line written so far is on disk (a writer far ahead of zlib waits on it). */
  flushed(): Promise<void>;
  /** Ends the file (the compressed stream's trailer) and closes it. */
  close(): Promise<void>;
}

/**
 * Creates (or truncates) `path` for a trace. Plain files are appended to synchronously; a
 * compressed one goes through a zlib stream whose output is written synchronously as it comes,
 * flushed after every line.
 */
export function createTraceFile(path: string): TraceFile {
  const kind = compressionOf(path);
  const fd = openSync(path, "w");
  if (kind === undefined) {
    return {
      write: (line) => {
        writeSync(fd, line);
      },
      flushed: () => Promise.resolve(),
      close: () => {
        closeSync(fd);
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
  let failure: Error | undefined;
  deflater.on("data", (chunk: Buffer) => {
    try {
      writeSync(fd, chunk);
    } catch (error) {
      failure ??= error instanceof Error ? error : new Error("cannot write the trace", { cause: error });
    }
  });
  const finished = new Promise<void>((resolve, reject) => {
    deflater.once("end", resolve);
    deflater.once("error", reject);
  });
  let lastFlush: Promise<void> = Promise.resolve();
  return {
    write: (line) => {
      if (failure !== undefined) throw failure;
      deflater.write(line);
      lastFlush = new Promise((resolve) => deflater.flush(flushMode, () => resolve()));
    },
    flushed: () => lastFlush,
    close: async () => {
      deflater.end();
      try {
        await finished;
      } finally {
        closeSync(fd);
      }
      if (failure !== undefined) throw failure;
    },
  };
}
