/**
 * Line:column lookup for issues in a scenario file. Built lazily, on the error path only: parsing a
 * 35 MB JSON trace a second time as YAML just to know positions would cost more than the replay.
 */
import { LineCounter, parseDocument } from "yaml";
import { createPositionLookup, type PositionLookup } from "../config-file/position-lookup.js";
import type { StructuredFile } from "../files/read-structured-file.js";

export function positionsOf(parsed: StructuredFile & { ok: true }): PositionLookup {
  let lookup: PositionLookup | undefined;
  return {
    locate(path) {
      if (lookup === undefined) {
        const lineCounter = new LineCounter();
        const doc = parseDocument(parsed.text, { lineCounter, prettyErrors: false });
        lookup = createPositionLookup(doc, lineCounter);
      }
      return lookup.locate(path);
    },
  };
}
