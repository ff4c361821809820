import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { linesOfChunks, linesOfText, type LineItem } from "./jsonl-lines.js";

const noError = (e: unknown): { code: string; message: string } => ({
  code: "file-unreadable",
  message: `cannot read: ${String(e)}`,
});

async function collect(chunks: readonly (string | Uint8Array)[], maxLineBytes?: number): Promise<LineItem[]> {
  function* source(): Generator<Uint8Array> {
    for (const c of chunks) yield typeof c === "string" ? Buffer.from(c, "utf8") : c;
  }
  const out: LineItem[] = [];
  for await (const item of linesOfChunks(source(), noError, maxLineBytes)) out.push(item);
  return out;
}

const texts = (items: readonly LineItem[]): (string | undefined)[] =>
  items.map((i) => (i.kind === "line" ? i.text : undefined));

describe("linesOfText", () => {
  const cases: { name: string; text: string; lines: string[] }[] = [
    { name: "LF lines, last without newline", text: "a\nb\nc", lines: ["a", "b", "c"] },
    { name: "a final newline adds no line", text: "a\nb\n", lines: ["a", "b"] },
    { name: "CRLF", text: "a\r\nb\r\n", lines: ["a", "b"] },
    { name: "blank lines are kept (and numbered)", text: "a\n\n\nb\n", lines: ["a", "", "", "b"] },
    { name: "a byte-order mark on line 1 is dropped", text: "\uFEFF{}\n{}\n", lines: ["{}", "{}"] },
    { name: "empty text", text: "", lines: [] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const items = [...linesOfText(c.text)];
      assert.deepEqual(texts(items), c.lines);
      assert.deepEqual(
        items.map((i) => i.line),
        c.lines.map((_, i) => i + 1),
      );
    });
  }
});

describe("linesOfChunks", () => {
  test("gives the same lines however the bytes are chunked", async () => {
    const text = '{"a":1}\r\n\n{"b":"é€𝄞"}\n{"c":[1,2,3]}\n  \n{"d":4}';
    const expected = [...linesOfText(text)];
    const bytes = Buffer.from(text, "utf8");
    for (const size of [1, 2, 3, 5, 7, 11, bytes.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      assert.deepEqual(await collect(chunks), expected, `chunks of ${size} bytes`);
    }
  });

  test("a multi-byte character split between chunks is decoded whole", async () => {
    const bytes = Buffer.from("€\n", "utf8"); // e2 82 ac 0a
    const items = await collect([bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)]);
    assert.deepEqual(texts(items), ["€"]);
  });

  test("a NUL byte ends the lines with a binary-file problem at its offset", async () => {
    const items = await collect(['{"a":1}\n', Buffer.from([0x7b, 0x00, 0x7d, 0x0a])]);
    assert.deepEqual(texts(items), ['{"a":1}', undefined]);
    const last = items.at(-1);
    assert.ok(last?.kind === "unreadable");
    assert.equal(last.code, "binary-file");
    assert.match(last.message, /NUL byte at offset 9/);
  });

  test("invalid UTF-8 is reported with the number of the line holding it", async () => {
    const items = await collect([
      Buffer.concat([Buffer.from("{}\n{}\n"), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from("{}\n")]),
    ]);
    assert.deepEqual(texts(items), [undefined]);
    const last = items[0];
    assert.ok(last?.kind === "unreadable");
    assert.equal(last.line, 3);
    assert.match(last.message, /not valid UTF-8/);
  });

  test("invalid UTF-8 in a line spread over chunks", async () => {
    const items = await collect(["{}\n{", Buffer.from([0xc3]), Buffer.from([0x28]), "}\n"]);
    assert.deepEqual(texts(items), ["{}", undefined]);
    assert.equal(items[1]?.line, 2);
  });

  test("a line longer than the limit is refused, not accumulated without end", async () => {
    const items = await collect(["{}\n", "x".repeat(10), "y".repeat(10), "z\n"], 15);
    assert.deepEqual(texts(items), ["{}", undefined]);
    assert.ok(items[1]?.kind === "unreadable" && items[1].code === "line-too-long" && items[1].line === 2);
  });

  test("a read error mid-stream ends the lines with that problem", async () => {
    function* failing(): Generator<Uint8Array> {
      yield Buffer.from("{}\n{}\n");
      throw Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" });
    }
    const items: LineItem[] = [];
    for await (const item of linesOfChunks(failing(), noError)) items.push(item);
    assert.deepEqual(texts(items), ["{}", "{}", undefined]);
    const last = items[2];
    assert.ok(last?.kind === "unreadable");
    assert.match(last.message, /EIO/);
  });
});
