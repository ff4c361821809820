/** Go's `%q` / `strconv.Quote` for the error texts the kubelet's flag and number parsers produce. */

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** Quotes `s` the way Go's `strconv.Quote` does (printable runes kept, others escaped). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = NAMED_ESCAPES[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    // Lone surrogates cannot come from valid UTF-8; Go would print the replacement rune's escape.
    if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += "\\ufffd";
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + '"';
}
