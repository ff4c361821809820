// Tests for RFC 3339 timestamp parsing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRfc3339 } from "./rfc3339.js";

const cases: { text: string; want: number | undefined }[] = [
  { text: "1970-01-01T00:00:00Z", want: 0 },
  { text: "2026-06-26T10:12:51Z", want: Date.UTC(2026, 5, 26, 10, 12, 51) },
  { text: "2026-06-26T10:12:51.406244668Z", want: Date.UTC(2026, 5, 26, 10, 12, 51) + 406.244 },
  { text: "2026-06-26T10:12:51.5Z", want: Date.UTC(2026, 5, 26, 10, 12, 51) + 500 },
  { text: "2026-06-26T12:12:51+02:00", want: Date.UTC(2026, 5, 26, 10, 12, 51) },
  { text: "2026-06-26T05:42:51-04:30", want: Date.UTC(2026, 5, 26, 10, 12, 51) },
  { text: "2024-02-29T00:00:00Z", want: Date.UTC(2024, 1, 29) },
  { text: "1969-12-31T23:59:59Z", want: -1000 },
  { text: "0001-01-01T00:00:00Z", want: -62135596800000 },
  { text: "2023-02-29T00:00:00Z", want: undefined },
  { text: "2026-13-01T00:00:00Z", want: undefined },
  { text: "2026-06-26T24:00:00Z", want: undefined },
  { text: "2026-06-26T10:12:60Z", want: undefined },
  { text: "2026-06-26T10:12:51+24:00", want: undefined },
  { text: "2026-06-26 10:12:51Z", want: undefined },
  { text: "2026-06-26T10:12:51", want: undefined },
  { text: "2026-06-26", want: undefined },
  { text: "", want: undefined },
];

for (const c of cases) {
  test(`parseRfc3339(${JSON.stringify(c.text)})`, () => {
    const got = parseRfc3339(c.text);
    if (c.want === undefined || got === undefined) assert.equal(got, c.want);
    else assert.ok(Math.abs(got - c.want) < 1e-6, `${got} != ${c.want}`);
  });
}
