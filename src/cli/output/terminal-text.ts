/**
 * Text from input files (pod names, namespaces, messages quoting them) made safe to print on a
 * terminal: control characters are shown as escapes instead of being obeyed. A pod named
 * `"web\u001b]0;owned\u0007"` in a scenario or a cluster would otherwise retitle the terminal, move
 * the cursor or recolour the rest of the output; a carriage return would overwrite the line it is
 * on. Escaped are the C0 controls and DEL (`\x1b`, `\r`, `\n` too: one line stays one line), the C1
 * controls (U+0080–U+009F, `\x9b` is a CSI of its own), and the Unicode line separators and
 * bidirectional overrides that reorder what a terminal shows (`\u202e`).
 */

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escape(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control character shown as an escape (`\x1b`, `\x0d`, `\u202e`). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escape);
}

/** Each line of `text` made safe, the line breaks between them kept (a stack trace stays readable). */
export function terminalSafeLines(text: string): string {
  return text.split("\n").map(terminalSafe).join("\n");
}
