/**
 * The typed error a JSON reader throws for malformed text: V8's reason, with the offending position as
 * a 1-based line and column so a file reader can point at it.
 */
import { findJsonErrorOffset } from "./find-json-error.js";

export class JsonSyntaxError extends Error {
  override readonly name = "JsonSyntaxError";
  readonly code = "json-syntax";
  /** What is wrong, without position (`Unexpected token '}'`). */
  readonly reason: string;
  /** Offset in UTF-16 code units. */
  readonly offset: number;
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units from the line start. */
  readonly column: number;

  constructor(reason: string, offset: number, line: number, column: number, options?: ErrorOptions) {
    super(`${reason} at line ${line}, column ${column}`, options);
    this.reason = reason;
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

// "Unterminated string in JSON at position 4", "... after JSON at position 7" (Node 20's V8; newer
// ones append "(line 1 column 5)").
const AT_POSITION = /(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/;
// V8 quotes (part of) the source in its unexpected-token message, and gives no position; the token
// is one character (two code units for an astral one).
const UNEXPECTED_TOKEN = /^Unexpected token '([\s\S]{1,2}?)', [\s\S]* is not valid JSON$/;

/** Turns what `JSON.parse(text)` threw into a `JsonSyntaxError` positioned in `text`. */
export function jsonSyntaxErrorFrom(error: unknown, text: string): JsonSyntaxError {
  const message = error instanceof Error ? error.message : String(error);
  let reason = message;
  let offset: number | undefined;
  const atPosition = AT_POSITION.exec(message);
  if (atPosition?.[1] !== undefined) {
    offset = Number(atPosition[1]);
    reason = message.slice(0, atPosition.index);
  } else {
    const token = UNEXPECTED_TOKEN.exec(message)?.[1];
    // Escaped, so that a stray newline or NUL stays visible on a one-line error report.
    if (token !== undefined) reason = `Unexpected token '${JSON.stringify(token).slice(1, -1)}'`;
    offset = findJsonErrorOffset(text) ?? (message.includes("end of JSON input") ? text.length : 0);
  }
  const { line, column } = lineAndColumn(text, Math.min(offset, text.length));
  return new JsonSyntaxError(reason, offset, line, column, { cause: error });
}

/** 1-based line and column of `offset`; lines end at "\n" (a "\r\n" pair counts once). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let nl = text.indexOf("\n"); nl !== -1 && nl < offset; nl = text.indexOf("\n", nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
