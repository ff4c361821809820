/**
 * The front door's own rules (src/index.ts): only re-exports, no logic; a TSDoc line on every
 * exported name, which the compiler carries into index.d.ts for users' editors; a module comment
 * with a usage example; and every value it names exists at run time.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import * as library from "../../src/index.js";
import { REPO_ROOT } from "../support/repo-paths.js";

const INDEX = join(REPO_ROOT, "src", "index.ts");
const source = ts.createSourceFile(INDEX, readFileSync(INDEX, "utf8"), ts.ScriptTarget.ES2023, true);

/** Every `export { ... } from` / `export type { ... } from` specifier of index.ts. */
const specifiers = source.statements.flatMap((s) =>
  ts.isExportDeclaration(s) && s.exportClause !== undefined && ts.isNamedExports(s.exportClause)
    ? s.exportClause.elements.map((e) => ({
        name: e.name.text,
        typeOnly: s.isTypeOnly || e.isTypeOnly,
        node: e,
      }))
    : [],
);

test("src/index.ts is a list of re-exports from other modules", () => {
  const other = source.statements.filter(
    (s) => !(ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined),
  );
  assert.deepEqual(
    other.map((s) => s.getText(source).slice(0, 60)),
    [],
  );
  assert.ok(specifiers.length > 0);
});

test("every export of src/index.ts carries a TSDoc comment", () => {
  const undocumented = specifiers.filter(({ node }) => {
    const comments = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
    return !comments.some((c) => source.text.startsWith("/**", c.pos));
  });
  assert.deepEqual(
    undocumented.map((s) => s.name),
    [],
  );
});

test("the module comment shows how to use the library", () => {
  assert.match(source.text, /^\/\*\*[\s\S]*?@example[\s\S]*?from "evictd"[\s\S]*?\*\//);
});

test("every value export exists at run time, and the engine's entry points are among them", () => {
  const values = specifiers.filter((s) => !s.typeOnly).map((s) => s.name);
  const exported = library as Record<string, unknown>;
  assert.deepEqual(
    values.filter((name) => exported[name] === undefined),
    [],
  );
  assert.deepEqual(Object.keys(library).sort(), [...values].sort());
  for (const name of [
    "synchronize",
    "INITIAL_STATE",
    "buildEvictionConfig",
    "decodeSummary",
    "decodePodList",
  ])
    assert.ok(values.includes(name), `${name} is not exported`);
  for (const name of ["parseJsonExact", "admitPod", "explainRanking", "replay"])
    assert.ok(values.includes(name), `${name} is not exported`);
});
