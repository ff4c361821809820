/**
 * deploy/fleet/: the fleet comparison as a Kubernetes Indexed Job (+ its merge Job) and as an Argo
 * Workflows template. Each parses; the Jobs use only fields of the Kubernetes 1.34 API models
 * (@kubernetes/client-node) and hold what an Indexed Job of shards needs (Indexed completion,
 * restartPolicy Never, a podFailurePolicy that fails an index at once on exit code 2, invalid
 * input, with backoffLimitPerIndex); the Argo template uses only the WorkflowTemplate fields listed
 * here (from Argo's pkg/apis/workflow/v1alpha1/workflow_types.go), its containers only fields of
 * the Kubernetes container model, every step names a template, and the retry skips exit code 2. The
 * arguments every container gives evictd are parsed by evictd itself (it gets as far as reading the
 * plan). Nothing here talks to a cluster or an Argo server.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../support/repo-paths.js";
import { modelProblems } from "../support/k8s-model-check.js";
import { runEvictdIn, scratchDir } from "../cli/evictd-cli.js";

type Json = Record<string, unknown>;
const FLEET = join(REPO_ROOT, "deploy", "fleet");

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function load(name: string): Json[] {
  return parseAllDocuments(readFileSync(join(FLEET, name), "utf8")).map((doc, i) => {
    assert.deepEqual(
      doc.errors.map((e) => e.message),
      [],
      `${name} document ${i + 1}`,
    );
    const v: unknown = doc.toJS();
    assert.ok(isObject(v), `${name} document ${i + 1} is an object`);
    return v;
  });
}

function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const key of path.split(".")) cur = isObject(cur) ? cur[key] : undefined;
  return cur;
}

/** evictd given `args` (after `node /app/bin/evictd.js`), with the plan path missing: it must get as far as reading it. */
function assertEvictdAccepts(args: readonly string[]): void {
  const scratch = scratchDir("fleet-args");
  try {
    const r = runEvictdIn(scratch.dir, args);
    assert.equal(r.status, 2, `evictd ${args.join(" ")}\n${r.stderr}`);
    assert.match(r.stderr, /cannot read the plan|cannot write "\/fleet\/plan.json"/, r.stderr);
    assert.doesNotMatch(r.stderr, /unknown option|error: /);
  } finally {
    scratch.cleanup();
  }
}

describe("deploy/fleet: the Indexed Job and its merge", () => {
  test("compare-job.yaml: a valid batch/v1 Job of indexed shards; exit code 2 fails its index, disruptions are ignored", () => {
    const [job, ...rest] = load("compare-job.yaml");
    assert.equal(rest.length, 0);
    assert.ok(job !== undefined);
    assert.equal(`${String(job["apiVersion"])}/${String(job["kind"])}`, "batch/v1/Job");
    assert.deepEqual(modelProblems(job, "V1Job", "Job"), []);
    assert.equal(at(job, "spec.completionMode"), "Indexed");
    assert.ok(Number.isInteger(at(job, "spec.completions")));
    assert.ok(Number.isInteger(at(job, "spec.backoffLimitPerIndex")), "FailIndex needs backoffLimitPerIndex");
    assert.equal(
      at(job, "spec.template.spec.restartPolicy"),
      "Never",
      "a podFailurePolicy needs restartPolicy Never",
    );
    const rules = at(job, "spec.podFailurePolicy.rules") as Json[];
    const failIndex = rules.find((r) => r["action"] === "FailIndex");
    assert.deepEqual(at(failIndex, "onExitCodes"), { containerName: "shard", operator: "In", values: [2] });
    assert.ok(rules.some((r) => r["action"] === "Ignore" && JSON.stringify(r).includes("DisruptionTarget")));
    const containers = at(job, "spec.template.spec.containers") as Json[];
    assert.deepEqual(
      containers.map((c) => c["name"]),
      ["shard"],
    );
    const args = containers[0]?.["args"] as string[];
    assert.deepEqual(args.slice(0, 2), ["compare", "shard"]);
    assert.ok(!args.includes("--index"), "the index comes from JOB_COMPLETION_INDEX");
    assertEvictdAccepts(args);
  });

  test("merge-job.yaml: a valid Job merging the same plan's results", () => {
    const [job] = load("merge-job.yaml");
    assert.ok(job !== undefined);
    assert.deepEqual(modelProblems(job, "V1Job", "Job"), []);
    const compareJob = load("compare-job.yaml")[0];
    const shardArgs = at(compareJob, "spec.template.spec.containers") as Json[];
    const args = (at(job, "spec.template.spec.containers") as Json[])[0]?.["args"] as string[];
    assert.deepEqual(args.slice(0, 2), ["compare", "merge"]);
    const shard = shardArgs[0]?.["args"] as string[];
    assert.equal(args[2], shard[2], "the same plan");
    assert.equal(
      args[args.indexOf("--results") + 1],
      shard[shard.indexOf("--results") + 1],
      "the same results",
    );
    assert.deepEqual(at(job, "spec.template.spec.volumes"), at(compareJob, "spec.template.spec.volumes"));
    assertEvictdAccepts(args);
  });
});

/** Argo's WorkflowTemplate fields this template may use (workflow_types.go, v3.5). */
const ARGO = {
  spec: new Set(["entrypoint", "arguments", "volumes", "securityContext", "templates"]),
  template: new Set(["name", "steps", "script", "container", "inputs", "outputs", "retryStrategy"]),
  step: new Set(["name", "template", "arguments", "withSequence", "continueOn"]),
  retryStrategy: new Set(["limit", "retryPolicy", "backoff", "expression"]),
  sequence: new Set(["count", "start", "end", "format"]),
};

function unknownKeys(v: unknown, allowed: ReadonlySet<string>, where: string): string[] {
  return isObject(v)
    ? Object.keys(v)
        .filter((k) => !allowed.has(k))
        .map((k) => `${where}.${k}`)
    : [`${where}: not an object`];
}

describe("deploy/fleet: the Argo Workflows template", () => {
  const [wf] = load("argo-workflow-template.yaml");

  test("WorkflowTemplate fields, containers and volumes as the APIs define them; every step names a template", () => {
    assert.ok(wf !== undefined);
    assert.equal(wf["apiVersion"], "argoproj.io/v1alpha1");
    assert.equal(wf["kind"], "WorkflowTemplate");
    const spec = at(wf, "spec") as Json;
    const problems = unknownKeys(spec, ARGO.spec, "spec");
    problems.push(...modelProblems(spec["volumes"], "Array<V1Volume>", "spec.volumes"));
    problems.push(...modelProblems(spec["securityContext"], "V1PodSecurityContext", "spec.securityContext"));
    const templates = spec["templates"] as Json[];
    const names = new Set(templates.map((t) => String(t["name"])));
    assert.ok(names.has(String(spec["entrypoint"])), "the entrypoint is a template");
    for (const t of templates) {
      const where = `template ${String(t["name"])}`;
      problems.push(...unknownKeys(t, ARGO.template, where));
      const kinds = ["steps", "script", "container"].filter((k) => t[k] !== undefined);
      assert.equal(kinds.length, 1, `${where}: one of steps, script, container`);
      if (t["container"] !== undefined)
        problems.push(...modelProblems(t["container"], "V1Container", `${where}.container`));
      if (isObject(t["script"])) {
        const { source, ...container } = t["script"];
        assert.equal(typeof source, "string", `${where}: a script has its source`);
        problems.push(...modelProblems(container, "V1Container", `${where}.script`));
      }
      if (t["retryStrategy"] !== undefined)
        problems.push(...unknownKeys(t["retryStrategy"], ARGO.retryStrategy, `${where}.retryStrategy`));
      for (const group of (t["steps"] as Json[][] | undefined) ?? [])
        for (const step of group) {
          problems.push(...unknownKeys(step, ARGO.step, `${where} step ${String(step["name"])}`));
          assert.ok(names.has(String(step["template"])), `step ${String(step["name"])} names a template`);
          if (step["withSequence"] !== undefined)
            problems.push(...unknownKeys(step["withSequence"], ARGO.sequence, "withSequence"));
        }
    }
    assert.deepEqual(problems, []);
  });

  test("plan, then a shard per plan entry (no retry on exit code 2), then the merge; evictd parses each one's arguments", () => {
    const templates = at(wf, "spec.templates") as Json[];
    const byName = new Map(templates.map((t) => [String(t["name"]), t]));
    const steps = at(byName.get("compare"), "steps") as Json[][];
    assert.deepEqual(
      steps.map((g) => g.map((s) => s["template"])),
      [["plan"], ["shard"], ["merge"]],
    );
    assert.equal(at(steps[1]?.[0], "withSequence.count"), "{{steps.plan.outputs.result}}");
    assert.equal(at(steps[1]?.[0], "continueOn.failed"), true, "the merge runs after failed shards too");
    assert.match(String(at(byName.get("shard"), "retryStrategy.expression")), /exitCode\)? != 2/);
    const fill = (s: string): string =>
      s
        .replace("{{inputs.parameters.index}}", "0")
        .replace("{{workflow.parameters.sweep}}", "evictionHard.memory.available=250Mi,500Mi")
        .replace("{{workflow.parameters.objective}}", "fewest-evictions");
    for (const name of ["shard", "merge"]) {
      const args = (at(byName.get(name), "container.args") as string[]).map(fill);
      assert.equal(args[1], name);
      assertEvictdAccepts(args);
    }
    const source = fill(String(at(byName.get("plan"), "script.source")));
    const words = source
      .replace(/\\\n/g, " ")
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/^"|"$/g, ""));
    assert.deepEqual(words.slice(0, 3), ["exec", "node", "/app/bin/evictd.js"]);
    assertEvictdAccepts(words.slice(3));
  });
});
