/**
 * Opens a scenario for `evictd replay`, whatever its form: a JSONL trace (by its name, or by its
 * first lines) streams step by step, also compressed (`.gz`, `.br`, or gzip's magic bytes; see
 * compressed-scenario.ts); anything else is read whole as one YAML or JSON document, as before.
 * All come back as a ScenarioStream.
 */
import { closeSync, createReadStream, fstatSync, openSync, readSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Issue } from "../../core/issues.js";
import { describeReadError, decodeText, parseStructuredText, readTextFile } from "../structured-file.js";
import { compressionOf, decompress, type Compression } from "./compressed-scenario.js";
import { isJsonlFileName, sniffJsonl } from "./jsonl-detect.js";
import { linesOfChunks, linesOfText } from "./jsonl-lines.js";
import { readJsonlScenario } from "./jsonl-scenario.js";
import { loadScenario } from "./load-scenario.js";
import { documentStream, type OpenedScenario } from "./scenario-stream.js";

/** How much of an input is looked at to tell JSONL from a document before reading on. */
const SNIFF_BYTES = 1 << 20;
/** Read size for streamed input: large enough that per-read work is negligible. */
const CHUNK_BYTES = 1 << 20;

function readIssue(file: string, e: unknown): Issue {
  const { code, message } = describeReadError(e);
  return { severity: "error", path: "scenario", code, message, file };
}

/** A document (or JSONL that only showed itself once read whole) from its text. */
async function fromText(
  text: string,
  label: string,
  baseDir: string,
  mayBeJsonl: boolean,
): Promise<OpenedScenario> {
  if (mayBeJsonl && sniffJsonl(text, true) === true)
    return readJsonlScenario(linesOfText(text), label, baseDir);
  const parsed = parseStructuredText(text, label, "scenario");
  if (!parsed.ok) return parsed;
  const loaded = await loadScenario(parsed, label, baseDir);
  return loaded.ok ? { ok: true, stream: documentStream(loaded.scenario) } : loaded;
}

/** The first bytes of a regular file, and whether they are all of it. */
function readHead(fd: number, size: number): { text: string; bytes: Buffer; complete: boolean } {
  const buffer = Buffer.alloc(Math.min(size, SNIFF_BYTES));
  // Positional: the file offset stays at 0 for whoever reads the file next.
  const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
  return {
    text: buffer.toString("utf8", 0, bytesRead),
    bytes: buffer.subarray(0, bytesRead),
    complete: bytesRead === size,
  };
}

/**
 * A regular file's bytes, read in order into one buffer reused for every chunk: no allocation per
 * read, and nothing left for the garbage collector (the line reader copies what it keeps). Reads
 * are synchronous: from a local file they are faster than a round trip through the thread pool,
 * and the replay has nothing else to do meanwhile. Closes the file when done or abandoned.
 */
function* fileChunks(fd: number): Generator<Uint8Array> {
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (n === 0) return;
      yield buffer.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A compressed JSONL scenario from its bytes; a stream that ends mid-way is read to its last whole
 * line and reported as a warning (a recording cut short), not as an error.
 */
async function fromCompressed(
  input: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  kind: Compression,
  label: string,
  baseDir: string,
): Promise<OpenedScenario> {
  const inflated = decompress(input, kind);
  const opened = await readJsonlScenario(linesOfChunks(inflated.chunks, describeReadError), label, baseDir);
  if (!opened.ok) return opened;
  const { stream } = opened;
  return {
    ok: true,
    stream: {
      header: stream.header,
      steps: stream.steps,
      close: () => stream.close(),
      issues: () =>
        inflated.truncated()
          ? [
              ...stream.issues(),
              {
                severity: "warning",
                path: "scenario",
                code: "truncated",
                message: `the ${kind} stream ends mid-way (a recording cut short?): replayed up to its last whole line`,
                file: label,
              },
            ]
          : stream.issues(),
    },
  };
}

/**
 * Opens the scenario file `file` (named in issues as given). A regular file is looked at, then read
 * from its start as JSONL or as a document; anything else (a pipe, `/dev/stdin`) is read once, as a
 * stream, like stdin.
 */
export async function openScenarioFile(file: string): Promise<OpenedScenario> {
  const baseDir = dirname(resolve(file));
  let fd: number | undefined;
  let kind: "regular" | "stream" | "other" = "other";
  let size = 0;
  try {
    fd = openSync(file, "r");
    const stat = fstatSync(fd);
    kind = stat.isFile() ? "regular" : stat.isDirectory() ? "other" : "stream";
    size = stat.size;
  } catch {
    // Missing, unreadable: the document reader below says why, as it always has.
  }
  if (fd !== undefined && kind === "stream") {
    const chunks = createReadStream(file, { fd, highWaterMark: CHUNK_BYTES }); // reads `fd`
    const compression = compressionOf(file);
    if (compression !== undefined) return fromCompressed(chunks, compression, file, baseDir);
    if (isJsonlFileName(file))
      return readJsonlScenario(linesOfChunks(chunks, describeReadError), file, baseDir);
    return openScenarioInput(chunks, file, baseDir);
  }
  let verdict: boolean | undefined;
  if (fd !== undefined && kind === "regular") {
    let compression: Compression | undefined;
    try {
      compression = compressionOf(file, readHead(fd, Math.min(size, 2)).bytes);
    } catch {
      compression = compressionOf(file);
    }
    // The chunk reader owns the file from here, and closes it.
    if (compression !== undefined) return fromCompressed(fileChunks(fd), compression, file, baseDir);
    try {
      if (isJsonlFileName(file)) verdict = true;
      else {
        const head = readHead(fd, size);
        verdict = sniffJsonl(head.text, head.complete);
      }
    } catch {
      verdict = undefined; // the reader below reports the problem
    }
    // The chunk reader owns the file from here, and closes it.
    if (verdict === true)
      return readJsonlScenario(linesOfChunks(fileChunks(fd), describeReadError), file, baseDir);
  }
  if (fd !== undefined) closeSync(fd);
  const read = await readTextFile(file, "scenario");
  if (!read.ok) return read;
  return fromText(read.text, file, baseDir, verdict === undefined);
}

/**
 * Opens a scenario arriving as a byte stream (stdin), labelled `label`, its references resolved from
 * `baseDir`. JSONL streams; a document is read to its end first.
 */
export async function openScenarioInput(
  input: AsyncIterable<Uint8Array>,
  label: string,
  baseDir: string,
): Promise<OpenedScenario> {
  const iterator = input[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  let verdict: boolean | undefined;
  try {
    while (verdict === undefined && headBytes < SNIFF_BYTES) {
      const r = await iterator.next();
      if (r.done === true) {
        ended = true;
        verdict = sniffJsonl(Buffer.concat(head).toString("utf8"), true);
        break;
      }
      head.push(Buffer.from(r.value));
      headBytes += r.value.length;
      verdict = sniffJsonl(Buffer.concat(head).toString("utf8"), false);
    }
  } catch (e) {
    return { ok: false, issues: [readIssue(label, e)] };
  }
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (ended) return;
    for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) yield r.value;
  }
  const first = head[0];
  const compression = first === undefined ? undefined : compressionOf(label, first);
  if (compression !== undefined) return fromCompressed(chunks(), compression, label, baseDir);
  if (verdict === true) return readJsonlScenario(linesOfChunks(chunks(), describeReadError), label, baseDir);
  const all: Uint8Array[] = [];
  try {
    for await (const c of chunks()) all.push(c);
  } catch (e) {
    return { ok: false, issues: [readIssue(label, e)] };
  }
  const text = decodeText(Buffer.concat(all), label, "scenario");
  if (!text.ok) return text;
  return fromText(text.text, label, baseDir, verdict === undefined);
}
