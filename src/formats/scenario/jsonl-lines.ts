/**
 * Lines of a JSONL scenario, read chunk by chunk so that a trace of any size is never one string:
 * each line is numbered (1-based, blank lines counted) and decoded as UTF-8. Problems with the bytes
 * themselves (a NUL byte, invalid UTF-8, a line too long for a string, a read error) end the lines
 * with one `unreadable` item, as the document reader refuses such files whole.
 */
import { constants, isUtf8 } from "node:buffer";

export type LineItem =
  | { readonly kind: "line"; readonly line: number; readonly text: string }
  | { readonly kind: "unreadable"; readonly line: number; readonly code: string; readonly message: string };

const NEWLINE = 0x0a;

/** Line text without its "\r" (CRLF files) and, on line 1, without a byte-order mark. */
function clean(text: string, line: number): string {
  let t = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (line === 1 && t.startsWith("\uFEFF")) t = t.slice(1);
  return t;
}

/** The lines of text already in memory (stdin, or a file read whole). */
export function* linesOfText(text: string): Generator<LineItem> {
  let line = 0;
  let from = 0;
  while (from < text.length) {
    const nl = text.indexOf("\n", from);
    const end = nl === -1 ? text.length : nl;
    line++;
    yield { kind: "line", line, text: clean(text.slice(from, end), line) };
    from = end + 1;
  }
}

/**
 * The lines of a byte stream. A chunk's complete lines (up to its last newline, which can never sit
 * inside a multi-byte character) are checked and decoded at once; a line split across chunks is
 * joined first. A chunk is done with once the next one is asked for: the source may reuse its buffer
 * (what is kept of a chunk, the start of a line, is copied). `maxLineBytes` bounds one line (default:
 * the longest string V8 can make).
 */
export async function* linesOfChunks(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  describeError: (e: unknown) => { code: string; message: string },
  maxLineBytes: number = constants.MAX_STRING_LENGTH,
): AsyncGenerator<LineItem> {
  let line = 0;
  let offset = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const tooLong = (): LineItem => ({
    kind: "unreadable",
    line: line + 1,
    code: "line-too-long",
    message: `line ${line + 1} is longer than ${maxLineBytes} bytes, too long to read as one string`,
  });
  /** Decodes `block`, whole lines separated by newlines (the last one without its newline). */
  function* decode(block: Buffer): Generator<LineItem> {
    if (!isUtf8(block)) {
      // The error path: find the first bad line, for its number.
      for (let from = 0; from <= block.length;) {
        const nl = block.indexOf(NEWLINE, from);
        const end = nl === -1 ? block.length : nl;
        line++;
        if (!isUtf8(block.subarray(from, end))) break;
        from = end + 1;
      }
      yield { kind: "unreadable", line, code: "binary-file", message: "the file is not valid UTF-8 text" };
      return;
    }
    // One string per line, not per block: a line's text then dies with its step, young, instead of
    // a block-sized string living on (and piling up in the old generation) until its last line.
    for (let from = 0; ;) {
      const nl = block.indexOf(NEWLINE, from);
      line++;
      yield {
        kind: "line",
        line,
        text: clean(block.toString("utf8", from, nl === -1 ? block.length : nl), line),
      };
      if (nl === -1) return;
      from = nl + 1;
    }
  }
  /** Yields from `decode`; false once the input turned out unreadable. */
  function* emit(block: Buffer): Generator<LineItem, boolean> {
    for (const item of decode(block)) {
      yield item;
      if (item.kind === "unreadable") return false;
    }
    return true;
  }

  try {
    for await (const raw of chunks) {
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      const nul = chunk.indexOf(0);
      if (nul >= 0) {
        yield {
          kind: "unreadable",
          line: line + 1,
          code: "binary-file",
          message: `the file is binary, not JSON text (NUL byte at offset ${offset + nul})`,
        };
        return;
      }
      offset += chunk.length;
      const first = chunk.indexOf(NEWLINE);
      if (first === -1) {
        pending.push(Buffer.from(chunk)); // a copy: the source may reuse its buffer
        pendingBytes += chunk.length;
        if (pendingBytes > maxLineBytes) {
          yield tooLong();
          return;
        }
        continue;
      }
      let from = 0;
      if (pending.length > 0) {
        // The line begun in earlier chunks ends here.
        if (pendingBytes + first > maxLineBytes) {
          yield tooLong();
          return;
        }
        const joined = Buffer.concat([...pending, chunk.subarray(0, first)]);
        pending = [];
        pendingBytes = 0;
        if (!(yield* emit(joined))) return;
        from = first + 1;
      }
      const last = chunk.lastIndexOf(NEWLINE);
      if (last >= from && !(yield* emit(chunk.subarray(from, last)))) return;
      if (last + 1 < chunk.length) {
        pending.push(Buffer.from(chunk.subarray(last + 1)));
        pendingBytes = chunk.length - last - 1;
      }
    }
  } catch (e) {
    const { code, message } = describeError(e);
    yield { kind: "unreadable", line: line + 1, code, message };
    return;
  }
  if (pendingBytes > 0) yield* emit(Buffer.concat(pending));
}
