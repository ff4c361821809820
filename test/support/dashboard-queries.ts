/**
 * The PromQL of a Grafana dashboard, ready to send to a plain Prometheus: every target's `expr`,
 * with Grafana's template variables replaced by values Prometheus accepts. `$instance` and any other
 * dashboard variable (`$x`, `${x}`, `${x:format}`) become `.*` (the dashboards use them only inside
 * `=~` matchers); the interval variables `$__rate_interval`, `$__interval` and `$__range` become
 * `1m` (their `_ms`/`_s` forms the matching number). An unknown `$__` variable throws, so a query
 * that would not survive the substitution is not sent half-replaced.
 */

type Json = Record<string, unknown>;

const BUILTINS: Readonly<Record<string, string>> = {
  __rate_interval: "1m",
  __interval: "1m",
  __range: "1m",
  __rate_interval_ms: "60000",
  __interval_ms: "60000",
  __range_ms: "60000",
  __range_s: "60",
};

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `expr` with Grafana's variables replaced (see the module comment). */
export function substituteVariables(expr: string): string {
  return expr.replace(/\$\{(\w+)(?::[^}]*)?\}|\$(\w+)/g, (_match, braced?: string, bare?: string) => {
    const name = braced ?? bare ?? "";
    if (!name.startsWith("__")) return ".*";
    const value = BUILTINS[name];
    if (value === undefined) throw new Error(`no substitute for Grafana's $${name} in ${expr}`);
    return value;
  });
}

/** Panels at the top level and inside rows (a collapsed row keeps its panels in its own `panels`). */
function allPanels(dashboard: Json): Json[] {
  const out: Json[] = [];
  const visit = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const panel of list as unknown[]) {
      if (!isObject(panel)) continue;
      out.push(panel);
      visit(panel["panels"]);
    }
  };
  visit(dashboard["panels"]);
  return out;
}

/**
 * Every target's expression in the dashboard `json` (the parsed dashboard JSON), in panel order,
 * with the panel's title; targets without a string `expr` are left out.
 */
export function dashboardQueries(json: unknown): { title: string; expr: string }[] {
  if (!isObject(json)) throw new Error("a dashboard is a JSON object");
  const queries: { title: string; expr: string }[] = [];
  for (const panel of allPanels(json)) {
    const title = typeof panel["title"] === "string" ? panel["title"] : `panel ${String(panel["id"])}`;
    const targets = Array.isArray(panel["targets"]) ? (panel["targets"] as unknown[]) : [];
    for (const target of targets)
      if (isObject(target) && typeof target["expr"] === "string")
        queries.push({ title, expr: substituteVariables(target["expr"]) });
  }
  return queries;
}
