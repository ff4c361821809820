/**
 * deploy/monitoring/: the Prometheus alerting rules, their promtool unit tests and the Grafana
 * dashboard. promtool checks the rule file and runs its unit tests (every documented alert has a
 * case that fires and one that does not); the rules and the dashboard name only metrics evictd
 * serves, from the "evictd" scrape job; the dashboard is Grafana-shaped (schema 39, a Prometheus
 * data source variable, an instance variable, unique panel ids, a position and a query for every
 * panel), and every one of its queries parses in a real Prometheus (an empty result is fine here).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse } from "yaml";
import { dashboardQueries, substituteVariables } from "../support/dashboard-queries.js";
import { prometheusSkip, startPrometheus, type PrometheusServer } from "../support/prometheus-server.js";
import { REPO_ROOT } from "../support/repo-paths.js";

type Json = Record<string, unknown>;

const MONITORING = join(REPO_ROOT, "deploy", "monitoring");
const RULES = join(MONITORING, "evictd-alerts.yaml");
const RULE_TESTS = join(MONITORING, "evictd-alerts.test.yaml");
const DASHBOARD = join(MONITORING, "evictd-dashboard.json");

/** The documented alerts and their severities. */
const DOCUMENTED_ALERTS: Readonly<Record<string, "critical" | "warning" | "info">> = {
  EvictdEvictionReactionSlow: "warning",
  EvictdWakeSourceNotArmed: "warning",
  EvictdStatsStale: "critical",
  EvictdLoopUnhealthy: "critical",
  EvictdDown: "critical",
  EvictdOOMKill: "warning",
  EvictdNodeEviction: "info",
};

/** The series evictd serves (src/server/metrics.ts, process-metrics.ts), plus Prometheus's `up`. */
const SERVED = new Set([
  "kubelet_evictions",
  "kubelet_eviction_stats_age_seconds_bucket",
  "kubelet_eviction_stats_age_seconds_count",
  "kubelet_eviction_stats_age_seconds_sum",
  "kubelet_node_name",
  "evictd_signal_available",
  "evictd_signal_capacity",
  "evictd_eviction_threshold",
  "evictd_node_condition",
  "evictd_pods",
  "evictd_eviction_reaction_seconds_bucket",
  "evictd_eviction_reaction_seconds_count",
  "evictd_eviction_reaction_seconds_sum",
  "evictd_manifest_files_with_errors",
  "evictd_loop_healthy",
  "evictd_last_stats_timestamp_seconds",
  "evictd_housekeeping_interval_seconds",
  "evictd_wake_sources_not_armed",
  "evictd_oom_kills_total",
  "evictd_eviction_preflight_refusals_total",
  "process_cpu_seconds_total",
  "process_cpu_user_seconds_total",
  "process_cpu_system_seconds_total",
  "process_resident_memory_bytes",
  "process_virtual_memory_bytes",
  "process_virtual_memory_max_bytes",
  "process_open_fds",
  "process_max_fds",
  "process_start_time_seconds",
  "up",
]);

const promtoolVersion = spawnSync("promtool", ["--version"], { encoding: "utf8" });
const promtoolSkip =
  promtoolVersion.error === undefined && promtoolVersion.status === 0
    ? false
    : "promtool is not on PATH (Debian: apt-get install prometheus)";
if (promtoolSkip !== false) console.error(`# promtool checks skipped: ${promtoolSkip}`);
if (prometheusSkip !== false) console.error(`# dashboard query parsing skipped: ${prometheusSkip}`);

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function obj(v: unknown, what: string): Json {
  assert.ok(isObject(v), `${what}: expected an object, got ${JSON.stringify(v)}`);
  return v;
}
function arr(v: unknown, what: string): unknown[] {
  assert.ok(Array.isArray(v), `${what}: expected a list, got ${JSON.stringify(v)}`);
  return v as unknown[];
}
function str(v: unknown, what: string): string {
  assert.equal(typeof v, "string", `${what}: expected a string, got ${JSON.stringify(v)}`);
  return v as string;
}

function promtool(...args: string[]): void {
  const r = spawnSync("promtool", args, { encoding: "utf8", cwd: REPO_ROOT });
  assert.equal(r.error, undefined, `promtool ${args.join(" ")}: ${String(r.error)}`);
  assert.equal(r.status, 0, `promtool ${args.join(" ")} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
}

/** The metric selectors `name{...}` of a PromQL expression: each name with its matchers. */
function selectors(expr: string): { name: string; matchers: string }[] {
  return [...expr.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*\{([^}]*)\}/g)].map((m) => ({
    name: m[1] ?? "",
    matchers: m[2] ?? "",
  }));
}

const rules = (): Json[] => {
  const groups = arr(obj(parse(readFileSync(RULES, "utf8")), RULES)["groups"], "groups");
  assert.equal(groups.length, 1, "one group");
  const group = obj(groups[0], "groups[0]");
  assert.equal(group["name"], "evictd");
  return arr(group["rules"], "groups[0].rules").map((r, i) => obj(r, `rules[${i}]`));
};

describe("deploy/monitoring/evictd-alerts.yaml", () => {
  test("promtool check rules accepts it", { skip: promtoolSkip }, () => {
    promtool("check", "rules", RULES);
  });

  test("promtool test rules passes evictd-alerts.test.yaml", { skip: promtoolSkip }, () => {
    promtool("test", "rules", RULE_TESTS);
  });

  test("its alerts are exactly the documented ones, each with its severity and a summary and description", () => {
    const all = rules();
    const names = all.map((r) => str(r["alert"], "alert"));
    assert.deepEqual([...names].sort(), Object.keys(DOCUMENTED_ALERTS).sort());
    assert.equal(new Set(names).size, names.length, "no alert twice");
    for (const rule of all) {
      const name = rule["alert"] as string;
      assert.deepEqual(obj(rule["labels"], `${name}.labels`), { severity: DOCUMENTED_ALERTS[name] }, name);
      const annotations = obj(rule["annotations"], `${name}.annotations`);
      assert.deepEqual(Object.keys(annotations).sort(), ["description", "summary"], name);
      for (const key of ["summary", "description"])
        assert.match(str(annotations[key], `${name}.${key}`), /\{\{ \$labels\.\w+ \}\}/, `${name}.${key}`);
    }
  });

  test("its expressions select only series evictd serves, from the evictd job", () => {
    for (const rule of rules()) {
      const expr = str(rule["expr"], `${String(rule["alert"])}.expr`);
      const found = selectors(expr);
      assert.ok(found.length > 0, expr);
      for (const { name, matchers } of found) {
        assert.ok(SERVED.has(name), `${String(rule["alert"])}: ${name} is not served`);
        assert.match(matchers, /\bjob="evictd"/, `${String(rule["alert"])}: ${name}{${matchers}}`);
      }
    }
  });

  test("its unit tests have, for every alert, a case that fires and one that does not", () => {
    const tests = arr(obj(parse(readFileSync(RULE_TESTS, "utf8")), RULE_TESTS)["tests"], "tests");
    const firing = new Set<string>();
    const quiet = new Set<string>();
    for (const [i, t] of tests.entries())
      for (const [j, c] of arr(
        obj(t, `tests[${i}]`)["alert_rule_test"],
        `tests[${i}].alert_rule_test`,
      ).entries()) {
        const testCase = obj(c, `tests[${i}].alert_rule_test[${j}]`);
        const name = str(testCase["alertname"], "alertname");
        const expected = testCase["exp_alerts"] ?? [];
        (arr(expected, `${name} exp_alerts`).length > 0 ? firing : quiet).add(name);
      }
    for (const name of Object.keys(DOCUMENTED_ALERTS)) {
      assert.ok(firing.has(name), `${name}: no case where it fires`);
      assert.ok(quiet.has(name), `${name}: no case where it does not fire`);
    }
  });
});

describe("deploy/monitoring/evictd-dashboard.json", () => {
  const dashboard = (): Json => obj(JSON.parse(readFileSync(DASHBOARD, "utf8")), DASHBOARD);

  test("is a Grafana dashboard with a Prometheus data source variable and an instance variable", () => {
    const d = dashboard();
    assert.equal(d["schemaVersion"], 39);
    str(d["title"], "title");
    str(d["uid"], "uid");
    const variables = arr(obj(d["templating"], "templating")["list"], "templating.list").map((v, i) =>
      obj(v, `templating.list[${i}]`),
    );
    const byName = new Map(variables.map((v) => [v["name"], v]));
    const datasource = byName.get("datasource");
    assert.ok(datasource !== undefined, "a datasource variable");
    assert.equal(datasource["type"], "datasource");
    assert.equal(datasource["query"], "prometheus");
    const instance = byName.get("instance");
    assert.ok(instance !== undefined, "an instance variable");
    assert.equal(instance["type"], "query");
    assert.deepEqual(instance["datasource"], { type: "prometheus", uid: "${datasource}" });
    const query = isObject(instance["query"]) ? instance["query"]["query"] : instance["query"];
    assert.equal(query, "label_values(evictd_loop_healthy, instance)");
  });

  test("every panel has a unique id, a position, the data source variable and queries", () => {
    const panels = arr(dashboard()["panels"], "panels").map((p, i) => obj(p, `panels[${i}]`));
    assert.ok(panels.length >= 10, "the documented panels");
    const ids = panels.map((p) => p["id"]);
    assert.ok(
      ids.every((id) => Number.isInteger(id)),
      `integer ids: ${JSON.stringify(ids)}`,
    );
    assert.equal(new Set(ids).size, ids.length, `unique ids: ${JSON.stringify(ids)}`);
    for (const panel of panels) {
      const title = str(panel["title"], `panel ${String(panel["id"])} title`);
      assert.ok(
        ["timeseries", "stat"].includes(panel["type"] as string),
        `${title}: type ${String(panel["type"])}`,
      );
      const pos = obj(panel["gridPos"], `${title}.gridPos`);
      for (const k of ["x", "y", "w", "h"])
        assert.ok(Number.isInteger(pos[k]) && (pos[k] as number) >= 0, `${title}.gridPos.${k}`);
      assert.ok((pos["x"] as number) + (pos["w"] as number) <= 24, `${title}: within the 24 columns`);
      assert.deepEqual(panel["datasource"], { type: "prometheus", uid: "${datasource}" }, title);
      const targets = arr(panel["targets"], `${title}.targets`).map((t, i) =>
        obj(t, `${title}.targets[${i}]`),
      );
      assert.ok(targets.length > 0, `${title}: no targets`);
      const refIds = targets.map((t) => str(t["refId"], `${title} refId`));
      assert.equal(new Set(refIds).size, refIds.length, `${title}: unique refIds`);
      for (const target of targets) {
        const expr = str(target["expr"], `${title} expr`);
        assert.notEqual(expr.trim(), "", `${title}: an empty expr`);
        const found = selectors(expr);
        assert.ok(found.length > 0, `${title}: ${expr}`);
        for (const { name, matchers } of found) {
          assert.ok(SERVED.has(name), `${title}: ${name} is not served`);
          assert.match(matchers, /\bjob="evictd"/, `${title}: ${expr}`);
          assert.match(matchers, /\binstance=~"\$instance"/, `${title}: ${expr}`);
        }
      }
    }
  });

  test("dashboardQueries returns every expr with Grafana's variables replaced", () => {
    assert.equal(
      substituteVariables('sum(rate(x{instance=~"$instance", s=~"${signal:regex}"}[$__rate_interval]))'),
      'sum(rate(x{instance=~".*", s=~".*"}[1m]))',
    );
    assert.equal(substituteVariables("increase(x[$__interval]) / $__interval_ms"), "increase(x[1m]) / 60000");
    assert.throws(() => substituteVariables("x @ $__to"), /\$__to/);
    const sample = {
      panels: [
        { id: 1, title: "a", targets: [{ refId: "A", expr: 'up{instance=~"$instance"}' }, { refId: "B" }] },
        {
          id: 2,
          type: "row",
          title: "r",
          panels: [{ id: 3, title: "b", targets: [{ expr: "rate(y[$__interval])" }] }],
        },
      ],
    };
    assert.deepEqual(dashboardQueries(sample), [
      { title: "a", expr: 'up{instance=~".*"}' },
      { title: "b", expr: "rate(y[1m])" },
    ]);
    const queries = dashboardQueries(dashboard());
    const exprs = arr(dashboard()["panels"], "panels").flatMap((p) =>
      arr(obj(p, "panel")["targets"], "targets").map((t) => obj(t, "target")["expr"]),
    );
    assert.equal(queries.length, exprs.length);
    for (const q of queries) assert.doesNotMatch(q.expr, /\$/, `${q.title}: ${q.expr}`);
  });

  describe("in a real Prometheus", { skip: prometheusSkip }, () => {
    let prometheus: PrometheusServer | undefined;
    before(async () => {
      prometheus = await startPrometheus({});
    });
    after(async () => {
      await prometheus?.stop();
    });

    const query = async (expr: string): Promise<{ status: number; body: Json }> => {
      assert.ok(prometheus !== undefined, "Prometheus started");
      const response = await fetch(`${prometheus.url}/api/v1/query`, {
        method: "POST",
        body: new URLSearchParams({ query: expr }),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: response.status, body: obj(await response.json(), `answer to ${expr}`) };
    };

    test("a query that does not parse is a 400 with errorType bad_data", async () => {
      const { status, body } = await query("sum(rate(evictd_pods[1m])");
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body["errorType"], "bad_data");
    });

    test("every query of the dashboard parses", async () => {
      const problems: string[] = [];
      for (const { title, expr } of dashboardQueries(dashboard())) {
        const { status, body } = await query(expr);
        if (status !== 200 || body["status"] !== "success")
          problems.push(
            `${title}: ${expr}: HTTP ${status} ${String(body["errorType"])}: ${String(body["error"])}`,
          );
      }
      assert.deepEqual(problems, []);
    });
  });
});
