import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { jsonSyntaxErrorFrom, lineAndColumn } from "./json-syntax-error.js";

describe("lineAndColumn", () => {
  const text = "ab\ncd\r\n\nef";
  const cases: { offset: number; line: number; column: number }[] = [
    { offset: 0, line: 1, column: 1 },
    { offset: 2, line: 1, column: 3 },
    { offset: 3, line: 2, column: 1 },
    { offset: 6, line: 2, column: 4 },
    { offset: 7, line: 3, column: 1 },
    { offset: 8, line: 4, column: 1 },
    { offset: text.length, line: 4, column: 3 },
  ];
  for (const c of cases) {
    test(`offset ${c.offset} → ${c.line}:${c.column}`, () => {
      assert.deepEqual(lineAndColumn(text, c.offset), { line: c.line, column: c.column });
    });
  }
});

describe("jsonSyntaxErrorFrom", () => {
  test("takes the position from V8's message", () => {
    const error = jsonSyntaxErrorFrom(new SyntaxError("Unterminated string in JSON at position 4"), '"abc');
    assert.deepEqual(
      [error.reason, error.offset, error.line, error.column],
      ["Unterminated string", 4, 1, 5],
    );
  });

  test("accepts the newer V8 suffix with line and column", () => {
    const error = jsonSyntaxErrorFrom(
      new SyntaxError("Expected ',' or ']' after array element in JSON at position 6 (line 2 column 3)"),
      "[1,\n2 3]",
    );
    assert.deepEqual(
      [error.reason, error.line, error.column],
      ["Expected ',' or ']' after array element", 2, 3],
    );
  });

  test("locates the token itself when V8 gives no position, and drops the quoted source", () => {
    const text = '{\n  "a": ]\n}';
    const error = jsonSyntaxErrorFrom(
      new SyntaxError(`Unexpected token ']', ..."  "a": ]\n}" is not valid JSON`),
      text,
    );
    assert.deepEqual(
      [error.reason, error.offset, error.line, error.column],
      ["Unexpected token ']'", 9, 2, 8],
    );
  });

  test("keeps an unfamiliar message whole", () => {
    const error = jsonSyntaxErrorFrom(new Error("something else"), "[1,");
    assert.deepEqual([error.reason, error.offset, error.line, error.column], ["something else", 3, 1, 4]);
  });
});
