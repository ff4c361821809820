/**
 * Before any replay: every trace opens and its header is valid, and every configuration can be
 * made for it (a setting over a recorded configuration whose kubelet flags replace that field
 * cannot). A trace is read only as far as its header (a document whole); its steps are checked as
 * they are replayed, and a problem there fails that trace's cells alone.
 */
import type { Issue } from "../core/issues.js";
import { buildVariantFor, type ConfigVariant } from "../formats/load-config-variants.js";
import { openScenarioFile } from "../formats/scenario/open-scenario.js";

/** Every problem of every trace's header, with the trace named. */
export async function checkTraceHeaders(
  traces: readonly string[],
  variants: readonly ConfigVariant[],
): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const trace of traces) {
    const opened = await openScenarioFile(trace);
    if (!opened.ok) {
      issues.push(...opened.issues.map((i) => ({ ...i, file: i.file ?? trace })));
      continue;
    }
    const { stream } = opened;
    const header = stream.header;
    if (header === undefined) {
      // The header's problems are known once its line is read; the steps are not read here.
      issues.push(
        ...stream
          .issues()
          .filter((i) => i.severity === "error")
          .map((i) => ({ ...i, file: i.file ?? trace })),
      );
    } else
      for (const v of variants) {
        if (v.base.kind !== "recorded") continue;
        const built = buildVariantFor(v, header.configSource);
        if (!built.ok)
          issues.push(
            ...built.issues.map((i) => ({ ...i, file: trace, message: `${i.message} (in ${v.name})` })),
          );
      }
    await stream.close();
  }
  return issues;
}
