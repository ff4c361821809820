import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { EXACT_INT_PREFIX, exactInteger, JsonSyntaxError, parseJsonExact } from "./parse-json-exact.js";

const sentinel = (token: string): string => `${EXACT_INT_PREFIX}${token}`;

/** Replaces every sentinel with the double JSON.parse would have produced from the same token. */
function asDoubles(v: unknown): unknown {
  if (typeof v === "string" && v.startsWith(EXACT_INT_PREFIX))
    return Number(v.slice(EXACT_INT_PREFIX.length));
  if (Array.isArray(v)) return v.map(asDoubles);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asDoubles(x)]));
  }
  return v;
}

function syntaxError(text: string): JsonSyntaxError {
  try {
    parseJsonExact(text);
  } catch (error) {
    assert.ok(error instanceof JsonSyntaxError, `expected a JsonSyntaxError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

describe("parseJsonExact", () => {
  const cases: { name: string; text: string; want: unknown }[] = [
    { name: "uint64 max", text: '{"a":18446744073709551615}', want: { a: sentinel("18446744073709551615") } },
    { name: "largest safe integer stays a number", text: "[9007199254740991]", want: [9007199254740991] },
    {
      name: "one past the largest safe integer",
      text: "[9007199254740992]",
      want: [sentinel("9007199254740992")],
    },
    { name: "16 digits below 2^53 stay numbers", text: "[1000000000000000]", want: [1000000000000000] },
    { name: "big negative", text: "[-99999999999999999]", want: [sentinel("-99999999999999999")] },
    {
      name: "big negative just past the safe range",
      text: "[-9007199254740992]",
      want: [sentinel("-9007199254740992")],
    },
    {
      name: "big with a fraction",
      text: "[18446744073709551615.5]",
      want: [sentinel("18446744073709551615.5")],
    },
    { name: "big with an exponent", text: "[12345678901234567e2]", want: [sentinel("12345678901234567e2")] },
    { name: "long fraction stays a double", text: "[0.30000000000000004]", want: [0.30000000000000004] },
    {
      name: "long exponent mantissa stays a double",
      text: "[1.2345678901234567e+25]",
      want: [Number("1.2345678901234567e25")],
    },
    {
      name: "digits inside a string are untouched",
      text: '{"s":"18446744073709551615"}',
      want: { s: "18446744073709551615" },
    },
    {
      name: "digits in a key are untouched",
      text: '{"18446744073709551615":1}',
      want: { "18446744073709551615": 1 },
    },
    {
      name: "escaped quotes inside a string",
      text: '{"s":"a\\"18446744073709551615\\"b","n":18446744073709551615}',
      want: { s: 'a"18446744073709551615"b', n: sentinel("18446744073709551615") },
    },
    {
      name: "a string ending in an escaped backslash",
      text: '["x\\\\",18446744073709551615,"y\\\\\\"18446744073709551615"]',
      want: ["x\\", sentinel("18446744073709551615"), 'y\\"18446744073709551615'],
    },
    {
      name: "pretty-printed, several lines and candidates",
      text: '{\n "a": "1234567890123456789",\n "b": 1234567890123456789,\n "c": [\n  "x\\"",\n  99999999999999999\n ]\n}',
      want: {
        a: "1234567890123456789",
        b: sentinel("1234567890123456789"),
        c: ['x"', sentinel("99999999999999999")],
      },
    },
    {
      name: "CRLF line breaks",
      text: '{\r\n"a":\r\n18446744073709551615\r\n}',
      want: { a: sentinel("18446744073709551615") },
    },
    {
      name: "no long digit run at all",
      text: '{"a":[1,2.5,"x"],"b":null}',
      want: { a: [1, 2.5, "x"], b: null },
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(parseJsonExact(c.text), c.want));
  }

  test("uint64 max comes back exact through exactInteger", () => {
    const parsed = parseJsonExact('{"node":{"fs":{"inodesFree":18446744073709551615}}}') as {
      node: { fs: { inodesFree: unknown } };
    };
    assert.equal(exactInteger(parsed.node.fs.inodesFree), 18446744073709551615n);
  });

  describe("syntax errors", () => {
    const errors: { name: string; text: string; line: number; column: number; reason: string }[] = [
      { name: "empty text", text: "", line: 1, column: 1, reason: "Unexpected end of JSON input" },
      { name: "whitespace only", text: "  \n ", line: 2, column: 2, reason: "Unexpected end of JSON input" },
      {
        name: "unexpected token (no position from V8)",
        text: '{"a":}',
        line: 1,
        column: 6,
        reason: "Unexpected token '}'",
      },
      {
        name: "position on a later line",
        text: '{\n  "a": 1,\n  "b": tru\n}',
        line: 3,
        column: 11,
        reason: "Unexpected token '\\n'",
      },
      { name: "V8 position", text: '{\n"a":01}', line: 2, column: 6, reason: "Unexpected number" },
      {
        name: "trailing garbage",
        text: "[1]\nx",
        line: 2,
        column: 1,
        reason: "Unexpected non-whitespace character after JSON",
      },
      { name: "unterminated string", text: '["abc', line: 1, column: 6, reason: "Unterminated string" },
      {
        name: "error after a rewritten big number is positioned in the original text",
        text: '{"a": 18446744073709551615,\n "b": }',
        line: 2,
        column: 7,
        reason: "Unexpected token '}'",
      },
      {
        name: "big number with leading zero is not rewritten into something valid",
        text: "[018446744073709551615]",
        line: 1,
        column: 3,
        reason: "Unexpected number",
      },
      {
        name: "binary garbage",
        text: "\u0000\u00ff\ufffd\u0007",
        line: 1,
        column: 1,
        reason: "Unexpected token '\\u0000'",
      },
    ];
    for (const c of errors) {
      test(c.name, () => {
        const error = syntaxError(c.text);
        assert.deepEqual(
          { line: error.line, column: error.column, reason: error.reason },
          { line: c.line, column: c.column, reason: c.reason },
        );
        assert.equal(error.message, `${c.reason} at line ${c.line}, column ${c.column}`);
        assert.equal(error.code, "json-syntax");
        assert.ok(!(error instanceof SyntaxError), "a typed error, never a raw SyntaxError");
        assert.ok(error.cause instanceof SyntaxError, "V8's error is kept as the cause");
      });
    }

    test("random binary garbage always gives a positioned JsonSyntaxError", () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
          const text = Buffer.from(bytes).toString("latin1");
          let parsed = true;
          try {
            JSON.parse(text);
          } catch {
            parsed = false;
          }
          fc.pre(!parsed);
          const error = syntaxError(text);
          assert.ok(error.line >= 1 && error.column >= 1 && error.offset <= text.length);
        }),
      );
    });
  });

  describe("properties", () => {
    test("agrees with JSON.parse on any JSON value, oversized integers aside", () => {
      fc.assert(
        fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, 2), (value, indent) => {
          const text = JSON.stringify(value, null, indent);
          assert.deepEqual(asDoubles(parseJsonExact(text)), JSON.parse(text));
        }),
      );
    });

    test("keeps every integer exact, wherever it sits among strings", () => {
      // Strings full of digits, quotes and backslashes around the numbers stress the string tracking.
      const tricky = fc.string({ unit: fc.constantFrom("1", "9", '"', "\\", " ", "\n", "a"), maxLength: 30 });
      const item = fc.oneof(
        fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((n) => ({ kind: "int" as const, n })),
        tricky.map((s) => ({ kind: "string" as const, s })),
      );
      fc.assert(
        fc.property(fc.array(item, { maxLength: 12 }), fc.boolean(), (items, pretty) => {
          const separator = pretty ? ",\n  " : ",";
          const text = `[${items.map((i) => (i.kind === "int" ? i.n.toString() : JSON.stringify(i.s))).join(separator)}]`;
          const parsed = parseJsonExact(text) as unknown[];
          assert.equal(parsed.length, items.length);
          items.forEach((want, k) => {
            const got = parsed[k];
            if (want.kind === "string") assert.equal(got, want.s);
            else assert.equal(exactInteger(got), want.n);
          });
        }),
      );
    });
  });
});
