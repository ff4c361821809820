/**
 * `$(VAR)` references in a container's command, args and env values, expanded as the kubelet does
 * (`third_party/forked/golang/expansion`): a defined variable is replaced, an undefined one is left
 * as written, `$$` escapes a `$`, and any other `$` is kept.
 */

/** Expands `text` against `lookup` (undefined = not defined). */
export function expandEnvRefs(text: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c !== "$" || i + 1 >= text.length) {
      out += c;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === "$") {
      out += "$";
      i += 2;
      continue;
    }
    if (next === "(") {
      const close = text.indexOf(")", i + 2);
      if (close < 0) {
        // Unterminated: upstream keeps `$(` as written and goes on reading after it.
        out += "$(";
        i += 2;
        continue;
      }
      const name = text.slice(i + 2, close);
      const value = name === "" ? undefined : lookup(name);
      out += value ?? `$(${name})`;
      i = close + 1;
      continue;
    }
    out += `$${next}`;
    i += 2;
  }
  return out;
}
