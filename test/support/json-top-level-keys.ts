/**
 * The top-level keys of a JSON object's text, in order and with repeats: JSON.parse keeps only the
 * last of duplicated keys, so a log line carrying `pid` twice looks fine once parsed.
 */

/** Keys of the object `text` holds at its top level; throws when `text` is not a JSON object. */
export function topLevelKeys(text: string): string[] {
  JSON.parse(text); // well-formed, or throw
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // A string: find its end, skipping escapes.
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) {
        keys.push(JSON.parse(text.slice(i, j + 1)) as string);
        expectKey = false;
      }
      i = j;
    } else if (c === "{" || c === "[") {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) expectKey = true;
  }
  return keys;
}

/** Keys that occur more than once at the top level of `text`. */
export function duplicateTopLevelKeys(text: string): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const k of topLevelKeys(text)) (seen.has(k) ? twice : seen).add(k);
  return [...twice];
}
