/**
 * The `data` of Prometheus' successful answers, checked and read: the matrix an instant query of a
 * range selector returns (every scraped sample in the window, as numbers) and the label sets of the
 * series endpoint. Anything else is an AdapterError `prometheus-response` that says where in the
 * answer it went wrong.
 */
import type { PrometheusSeries } from "../app/import/prometheus-port.js";
import { isRawObject } from "../core/raw/raw-object.js";
import { AdapterError } from "../errors.js";

/** The series of a matrix (a range selector's answer), their samples restricted to (fromMs, toMs]. */
export function matrixSeries(data: unknown, what: string, fromMs: number, toMs: number): PrometheusSeries[] {
  if (!isRawObject(data)) throw badResponse(what, "`data` is not an object");
  if (data.resultType !== "matrix")
    throw badResponse(what, `the result is a ${JSON.stringify(data.resultType)}, not a matrix`);
  if (!Array.isArray(data.result)) throw badResponse(what, "`data.result` is not a list");
  return data.result.map((entry: unknown, i): PrometheusSeries => {
    const path = `data.result[${i}]`;
    if (!isRawObject(entry)) throw badResponse(what, `${path} is not an object`);
    const labels = labelSet(entry.metric, what, `${path}.metric`);
    // A series of native histograms has `histograms` instead: no float samples for the import.
    const values = entry.values ?? [];
    if (!Array.isArray(values)) throw badResponse(what, `${path}.values is not a list`);
    const samples: (readonly [number, number])[] = [];
    values.forEach((pair: unknown, j) => {
      const at = `${path}.values[${j}]`;
      if (!Array.isArray(pair) || pair.length !== 2)
        throw badResponse(what, `${at} is not a [time, value] pair`);
      const [seconds, text] = pair as [unknown, unknown];
      if (typeof seconds !== "number" || !Number.isFinite(seconds))
        throw badResponse(what, `${at} has no numeric time`);
      const value = typeof text === "string" ? sampleValue(text) : undefined;
      if (value === undefined) throw badResponse(what, `${at} has no numeric value`);
      const ms = Math.round(seconds * 1000);
      // Prometheus before 3.0 also returns a sample exactly at the window's start: the port's
      // window is open there, as it is from 3.0 on, so consecutive windows never share a sample.
      if (ms > fromMs && ms <= toMs) samples.push([ms, value]);
    });
    return { labels, samples };
  });
}

/**
 * A sample value as Prometheus writes it (Go's strconv.FormatFloat): Number() reads everything but
 * the infinities, which Go spells `+Inf` and `-Inf`.
 */
function sampleValue(text: string): number | undefined {
  if (text === "+Inf" || text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const value = Number(text);
  return text.trim() === "" || Number.isNaN(value) ? undefined : value;
}

function labelSet(value: unknown, what: string, path: string): Record<string, string> {
  if (!isRawObject(value)) throw badResponse(what, `${path} is not a label set`);
  const labels: Record<string, string> = {};
  for (const [name, label] of Object.entries(value)) {
    if (typeof label !== "string") throw badResponse(what, `${path}.${name} is not a string`);
    labels[name] = label;
  }
  return labels;
}

function badResponse(what: string, why: string): AdapterError {
  return new AdapterError("prometheus-response", `${what}: unexpected answer from Prometheus: ${why}`, {
    hint: "check that --url points at Prometheus' API",
  });
}

/** The series endpoint's `data`: one label set per series. */
export function labelSets(data: unknown, what: string): Record<string, string>[] {
  if (!Array.isArray(data)) throw badResponse(what, "`data` is not a list of label sets");
  return data.map((labels, i) => labelSet(labels, what, `data[${i}]`));
}
