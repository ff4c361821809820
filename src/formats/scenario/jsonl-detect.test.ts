import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isJsonlFileName, sniffJsonl } from "./jsonl-detect.js";

describe("isJsonlFileName", () => {
  for (const [name, expected] of [
    ["trace.jsonl", true],
    ["trace.ndjson", true],
    ["dir/TRACE.JSONL", true],
    ["trace.json", false],
    ["trace.yaml", false],
    ["jsonl", false],
    ["trace.jsonl.gz", false],
  ] as const) {
    test(`${name} → ${expected}`, () => assert.equal(isJsonlFileName(name), expected));
  }
});

describe("sniffJsonl", () => {
  const cases: { name: string; text: string; complete: boolean; expected: boolean | undefined }[] = [
    {
      name: "header then a step line",
      text: '{"start":"2025-01-01T00:00:00Z"}\n{"at":"0s"}\n',
      complete: true,
      expected: true,
    },
    {
      name: "blank lines and CRLF around",
      text: '\n\r\n{"a":1}\r\n\r\n  {"at":"0s"}',
      complete: true,
      expected: true,
    },
    { name: "a byte-order mark first", text: '\uFEFF{"a":1}\n{"at":"0s"}\n', complete: true, expected: true },
    { name: "one compact JSON document", text: '{"steps":[{"at":"0s"}]}\n', complete: true, expected: false },
    {
      name: "a pretty-printed JSON document",
      text: '{\n  "steps": []\n}\n',
      complete: true,
      expected: false,
    },
    {
      name: "a document whose first line is not complete JSON",
      text: '{"a": 1,\n{"b": 2}}\n',
      complete: true,
      expected: false,
    },
    { name: "YAML", text: "steps:\n  - at: 0s\n", complete: true, expected: false },
    { name: "a JSON list", text: "[1]\n[2]\n", complete: true, expected: false },
    {
      name: "first line an object, next line not",
      text: '{"a":1}\nsteps: []\n',
      complete: true,
      expected: false,
    },
    {
      name: "first line a flow-YAML mapping, not JSON",
      text: "{a: 1}\n{b: 2}\n",
      complete: true,
      expected: false,
    },
    { name: "empty", text: "", complete: true, expected: false },
    {
      name: "incomplete: the first line is not finished",
      text: '{"start":"2025',
      complete: false,
      expected: undefined,
    },
    {
      name: "incomplete: only blanks after the first line so far",
      text: '{"a":1}\n\n',
      complete: false,
      expected: undefined,
    },
    { name: "incomplete, but YAML already shows", text: "start: x", complete: false, expected: false },
    {
      name: "incomplete, but a step line already shows",
      text: '{"a":1}\n{"at',
      complete: false,
      expected: true,
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(sniffJsonl(c.text, c.complete), c.expected));
  }
});
