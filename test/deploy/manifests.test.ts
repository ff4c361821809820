/**
 * The Kubernetes deployment in deploy/: every manifest parses, holds only the kinds and API versions
 * docs/kubernetes.md names, and uses only fields the Kubernetes API defines (checked against the
 * generated models of @kubernetes/client-node, Kubernetes 1.34). The DaemonSet runs a well-formed
 * `evictd watch` in shadow mode; RBAC grants exactly what watch needs, nothing with "*"; the
 * node-restriction policy covers every write RBAC grants. The Helm chart's values parse, every
 * `.Values` path a template uses exists, and its templates (directives removed) say what the plain
 * manifests say. Nothing here talks to a cluster, and the chart is not rendered by helm.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../support/repo-paths.js";
import { modelProblems } from "../support/k8s-model-check.js";

type Json = Record<string, unknown>;

const DEPLOY = join(REPO_ROOT, "deploy");
const CHART = join(DEPLOY, "helm", "evictd");

// ---------------------------------------------------------------------------------------------
// Small typed accessors (a failed assertion names the path)

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
function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const key of path.split(".")) cur = obj(cur, path)[key];
  return cur;
}

// ---------------------------------------------------------------------------------------------
// Manifests

/** Every document of a multi-document YAML text; parse errors fail the test with their position. */
function parseDocuments(text: string, file: string): Json[] {
  return parseAllDocuments(text).flatMap((doc, i) => {
    assert.deepEqual(
      doc.errors.map((e) => e.message),
      [],
      `${file}: YAML errors in document ${i + 1}`,
    );
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [obj(value, `${file} document ${i + 1}`)];
  });
}

function loadManifest(name: string): Json[] {
  return parseDocuments(readFileSync(join(DEPLOY, name), "utf8"), name);
}

function byKind(docs: readonly Json[], kind: string): Json[] {
  return docs.filter((d) => d["kind"] === kind);
}
function one(docs: readonly Json[], kind: string): Json {
  const found = byKind(docs, kind);
  assert.equal(found.length, 1, `expected one ${kind}, found ${found.length}`);
  return found[0] as Json;
}

/** Allowed apiVersion/kind pairs, and the client-node model describing each. */
const MODELS: Readonly<Record<string, string>> = {
  "v1/Namespace": "V1Namespace",
  "v1/ServiceAccount": "V1ServiceAccount",
  "apps/v1/DaemonSet": "V1DaemonSet",
  "rbac.authorization.k8s.io/v1/ClusterRole": "V1ClusterRole",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "V1ClusterRoleBinding",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy": "V1ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding": "V1ValidatingAdmissionPolicyBinding",
};

/** The files the docs tell people to apply, and what each holds. */
const EXPECTED_FILES: Readonly<Record<string, readonly string[]>> = {
  "daemonset.yaml": ["Namespace", "ServiceAccount", "DaemonSet"],
  "rbac.yaml": ["ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding"],
  "rbac-enforce.yaml": ["ClusterRole", "ClusterRoleBinding"],
  "node-restriction-policy.yaml": ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"],
};

// ---------------------------------------------------------------------------------------------
// Field check against the API models of @kubernetes/client-node (test/support/k8s-model-check.ts)

function manifestProblems(doc: Json, where: string, placeholder?: string): string[] {
  const key = `${String(doc["apiVersion"])}/${String(doc["kind"])}`;
  const model = MODELS[key];
  if (model === undefined) return [`${where}: unexpected apiVersion/kind ${key}`];
  return modelProblems(doc, model, `${where} ${String(doc["kind"])}`, placeholder);
}

// ---------------------------------------------------------------------------------------------
// `evictd watch` argument shape (the flags of the command as the cluster commands define them)

/** Flag → whether it takes a value. */
const WATCH_FLAGS: ReadonlyMap<string, boolean> = new Map([
  ["--node", true],
  ["--enforce", false],
  ["--use-eviction-api", false],
  ["--interval", true],
  ["--listen", true],
  ["--kubeconfig", true],
  ["--context", true],
  ["--source", true],
  ["--kubelet-port", true],
  ["--kubelet-insecure-tls", false],
  ["--kubelet-ca", true],
  ["--config", true],
  ["--decision-log", true],
  ["--record", true],
  ["--stats", true],
  ["--cgroupfs", true],
  ["--cgroup-driver", true],
  ["--cgroup-root", true],
  ["--node-cgroup", true],
]);

/** Parses `watch FLAGS...`; every flag known, values present, none repeated. Value flags map to their value, switches to "". */
function parseWatchArgs(args: readonly string[]): Map<string, string> {
  assert.equal(args[0], "watch", `the command must be "watch", got ${JSON.stringify(args)}`);
  const flags = new Map<string, string>();
  for (let i = 1; i < args.length; i++) {
    const flag = args[i] ?? "";
    const takesValue = WATCH_FLAGS.get(flag);
    assert.notEqual(takesValue, undefined, `unknown evictd watch flag ${JSON.stringify(flag)}`);
    assert.ok(!flags.has(flag), `${flag} given twice`);
    if (takesValue === true) {
      const value = args[i + 1];
      assert.ok(value !== undefined && !value.startsWith("--"), `${flag} needs a value`);
      flags.set(flag, value);
      i++;
    } else flags.set(flag, "");
  }
  return flags;
}

// ---------------------------------------------------------------------------------------------
// RBAC

/** "group/resource:verb" for every grant of a ClusterRole; "*" and URL rules are refused outright. */
function grants(role: Json): Set<string> {
  const name = String(at(role, "metadata.name"));
  const out = new Set<string>();
  for (const [i, rawRule] of arr(role["rules"], `${name}.rules`).entries()) {
    const rule = obj(rawRule, `${name}.rules[${i}]`);
    assert.equal(rule["nonResourceURLs"], undefined, `${name}: no non-resource URLs`);
    assert.equal(rule["resourceNames"], undefined, `${name}: unexpected resourceNames`);
    const groups = arr(rule["apiGroups"], `${name}.apiGroups`).map((g) => str(g, "apiGroup"));
    const resources = arr(rule["resources"], `${name}.resources`).map((r) => str(r, "resource"));
    const verbs = arr(rule["verbs"], `${name}.verbs`).map((v) => str(v, "verb"));
    for (const s of [...groups, ...resources, ...verbs])
      assert.ok(!s.includes("*"), `${name}: wildcard ${JSON.stringify(s)}`);
    for (const g of groups) for (const r of resources) for (const v of verbs) out.add(`${g}/${r}:${v}`);
  }
  return out;
}

const READ_GRANTS = ["/nodes:get", "/nodes/stats:get", "/nodes/configz:get", "/pods:list", "/pods:watch"];
const NODES_PROXY_GRANTS = ["/nodes/proxy:get"];
const ENFORCE_GRANTS = ["/pods:delete", "/pods/status:patch", "/pods/eviction:create", "/events:create"];

/** The admission operation a verb arrives as (PATCH is admitted as UPDATE). */
const VERB_OPERATION: Readonly<Record<string, string>> = {
  create: "CREATE",
  delete: "DELETE",
  patch: "UPDATE",
  update: "UPDATE",
};

function roleNamed(docs: readonly Json[], name: string): Json {
  const found = byKind(docs, "ClusterRole").find((r) => at(r, "metadata.name") === name);
  assert.ok(found !== undefined, `no ClusterRole ${name}`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// Helm templates without helm: drop directive-only lines, stand a placeholder in for inline actions

const PLACEHOLDER = "TEMPLATED";

function stripTemplate(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\{\{[^}]*\}\}\s*)+$/.test(line))
    .map((line) => line.replace(/\{\{[^}]*\}\}/g, PLACEHOLDER))
    .join("\n");
}

function loadTemplate(name: string): Json[] {
  return parseDocuments(
    stripTemplate(readFileSync(join(CHART, "templates", name), "utf8")),
    `templates/${name}`,
  );
}

function hasPath(values: unknown, path: readonly string[]): boolean {
  let cur = values;
  for (const key of path) {
    if (!isObject(cur) || !(key in cur)) return false;
    cur = cur[key];
  }
  return true;
}

// ---------------------------------------------------------------------------------------------

describe("the field check itself", () => {
  test("reports unknown fields and wrong types, accepts a correct object", () => {
    const good = {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "x", annotations: { "prometheus.io/port": "9090" } },
      spec: { template: { spec: { containers: [{ name: "c", ports: [{ containerPort: 9090 }] }] } } },
    };
    assert.deepEqual(manifestProblems(good, "t"), []);
    const bad = {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "x", annotations: { "prometheus.io/port": 9090 } },
      spec: {
        template: {
          spec: { containers: [{ name: "c", readinesProbe: {}, ports: [{ containerPort: "9090" }] }] },
        },
      },
    };
    assert.deepEqual(manifestProblems(bad, "t").sort(), [
      "t DaemonSet.metadata.annotations.prometheus.io/port: expected a string, got 9090",
      't DaemonSet.spec.template.spec.containers[0].ports[0].containerPort: expected a number, got "9090"',
      "t DaemonSet.spec.template.spec.containers[0].readinesProbe: not a field of V1Container",
    ]);
    assert.deepEqual(manifestProblems({ apiVersion: "v1", kind: "Pod" }, "t"), [
      "t: unexpected apiVersion/kind v1/Pod",
    ]);
  });

  test("the watch argument parser refuses malformed invocations", () => {
    assert.throws(() => parseWatchArgs(["run", "--node", "n"]), /must be "watch"/);
    assert.throws(() => parseWatchArgs(["watch", "--nodes", "n"]), /unknown evictd watch flag/);
    assert.throws(() => parseWatchArgs(["watch", "--node", "--enforce"]), /needs a value/);
    assert.throws(() => parseWatchArgs(["watch", "--enforce", "--enforce"]), /given twice/);
    assert.deepEqual(
      [...parseWatchArgs(["watch", "--node", "n", "--enforce"])],
      [
        ["--node", "n"],
        ["--enforce", ""],
      ],
    );
  });

  test("grants() refuses wildcards", () => {
    const role = { metadata: { name: "r" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["*"] }] };
    assert.throws(() => grants(role), /wildcard/);
  });
});

describe("deploy/*.yaml", () => {
  const files = readdirSync(DEPLOY)
    .filter((f) => f.endsWith(".yaml"))
    .sort();

  test("holds the documented files with the documented objects", () => {
    assert.deepEqual(files, Object.keys(EXPECTED_FILES).sort());
    for (const [file, kinds] of Object.entries(EXPECTED_FILES))
      assert.deepEqual(
        loadManifest(file).map((d) => d["kind"]),
        kinds,
        file,
      );
  });

  for (const file of files)
    test(`${file}: known kinds and API versions, only API-defined fields`, () => {
      const docs = loadManifest(file);
      assert.ok(docs.length > 0, `${file} is empty`);
      assert.deepEqual(
        docs.flatMap((d, i) => manifestProblems(d, `${file}#${i + 1}`)),
        [],
      );
      for (const d of docs)
        assert.ok(typeof at(d, "metadata.name") === "string", `${file}: every object has a name`);
    });
});

describe("deploy/daemonset.yaml", () => {
  const docs = loadManifest("daemonset.yaml");
  const text = readFileSync(join(DEPLOY, "daemonset.yaml"), "utf8");
  const namespace = String(at(one(docs, "Namespace"), "metadata.name"));
  const serviceAccount = one(docs, "ServiceAccount");
  const ds = one(docs, "DaemonSet");
  const pod = obj(at(ds, "spec.template.spec"), "pod spec");
  const containers = arr(pod["containers"], "containers");
  assert.equal(containers.length, 1);
  const container = obj(containers[0], "container");
  const args = arr(container["args"], "args").map((a) => str(a, "arg"));

  test("everything lives in the evictd namespace and runs as its ServiceAccount", () => {
    assert.equal(namespace, "evictd");
    assert.equal(at(serviceAccount, "metadata.namespace"), namespace);
    assert.equal(at(ds, "metadata.namespace"), namespace);
    assert.equal(pod["serviceAccountName"], at(serviceAccount, "metadata.name"));
    assert.notEqual(serviceAccount["automountServiceAccountToken"], false);
    assert.notEqual(pod["automountServiceAccountToken"], false);
    const selector = obj(at(ds, "spec.selector.matchLabels"), "selector");
    const labels = obj(at(ds, "spec.template.metadata.labels"), "pod labels");
    for (const [k, v] of Object.entries(selector)) assert.equal(labels[k], v, `selector label ${k}`);
  });

  test("runs `evictd watch --node $(NODE_NAME) --source kubelet` in shadow mode", () => {
    assert.equal(container["command"], undefined, "the image's entrypoint is evictd");
    const flags = parseWatchArgs(args);
    assert.equal(flags.get("--node"), "$(NODE_NAME)");
    assert.equal(flags.get("--source"), "kubelet");
    assert.equal(flags.get("--listen"), "0.0.0.0:9090");
    assert.match(flags.get("--interval") ?? "", /^\d+(ms|s|m|h)$/);
    assert.equal(flags.has("--enforce"), false, "shadow mode by default");
    assert.equal(flags.has("--use-eviction-api"), false);
    assert.equal(flags.has("--kubeconfig"), false, "in-cluster credentials");
    assert.ok(
      !(flags.has("--kubelet-ca") && flags.has("--kubelet-insecure-tls")),
      "either verify the kubelet or not",
    );
    // The documented switch to enforce mode is there, commented out.
    assert.match(text, /^\s*# - --enforce$/m);
  });

  test("reads the kubelet's cgroups from the host's cgroup filesystem, mounted read-only, without host PID or network", () => {
    const flags = parseWatchArgs(args);
    assert.equal(flags.get("--stats"), "cgroups");
    const mountPath = flags.get("--cgroupfs");
    const mounts = arr(container["volumeMounts"], "volumeMounts").map((m) => obj(m, "volumeMount"));
    const mount = mounts.find((m) => m["mountPath"] === mountPath);
    assert.ok(mount !== undefined, `a volume mounted at ${String(mountPath)}`);
    assert.equal(mount["readOnly"], true);
    const volumes = arr(pod["volumes"], "volumes").map((v) => obj(v, "volume"));
    const volume = volumes.find((v) => v["name"] === mount["name"]);
    assert.equal(at(volume, "hostPath.path"), "/sys/fs/cgroup");
    assert.notEqual(pod["hostPID"], true);
  });

  test("NODE_NAME comes from the downward API", () => {
    const env = arr(container["env"], "env").map((e) => obj(e, "env var"));
    const nodeName = env.find((e) => e["name"] === "NODE_NAME");
    assert.ok(nodeName !== undefined, "NODE_NAME is set");
    assert.equal(at(nodeName, "valueFrom.fieldRef.fieldPath"), "spec.nodeName");
  });

  test("probes and scraping use the port evictd listens on", () => {
    const listenPort = Number(parseWatchArgs(args).get("--listen")?.split(":").pop());
    const ports = arr(container["ports"], "ports").map((p) => obj(p, "port"));
    const metrics = ports.find((p) => p["name"] === "metrics");
    assert.ok(metrics !== undefined, "a port named metrics");
    assert.equal(metrics["containerPort"], listenPort);
    for (const probe of ["readinessProbe", "livenessProbe"]) {
      assert.equal(at(container, `${probe}.httpGet.path`), "/healthz", probe);
      assert.ok(
        [listenPort, "metrics"].includes(at(container, `${probe}.httpGet.port`) as number | string),
        `${probe} port`,
      );
    }
    const annotations = obj(at(ds, "spec.template.metadata.annotations"), "pod annotations");
    assert.equal(annotations["prometheus.io/scrape"], "true");
    assert.equal(annotations["prometheus.io/port"], String(listenPort));
    assert.equal(annotations["prometheus.io/path"], "/metrics");
  });

  test("is node-critical, on every node, also under pressure, without host networking", () => {
    assert.equal(pod["priorityClassName"], "system-node-critical");
    assert.notEqual(pod["hostNetwork"], true);
    const tolerations = arr(pod["tolerations"], "tolerations").map((t) => obj(t, "toleration"));
    assert.ok(
      tolerations.some(
        (t) => t["operator"] === "Exists" && t["key"] === undefined && t["effect"] === undefined,
      ),
      "tolerates every taint",
    );
    for (const key of ["memory-pressure", "disk-pressure", "pid-pressure"])
      assert.ok(
        tolerations.some(
          (t) =>
            t["key"] === `node.kubernetes.io/${key}` &&
            t["operator"] === "Exists" &&
            t["effect"] === "NoSchedule",
        ),
        `tolerates node.kubernetes.io/${key}`,
      );
  });

  test("runs unprivileged", () => {
    assert.equal(at(pod, "securityContext.runAsNonRoot"), true);
    assert.equal(at(pod, "securityContext.seccompProfile.type"), "RuntimeDefault");
    const sc = obj(container["securityContext"], "container securityContext");
    assert.equal(sc["allowPrivilegeEscalation"], false);
    assert.equal(sc["readOnlyRootFilesystem"], true);
    assert.notEqual(sc["privileged"], true);
    assert.deepEqual(at(sc, "capabilities.drop"), ["ALL"]);
    assert.equal(at(sc, "capabilities.add"), undefined);
  });

  test("has small requests and a memory limit above them", () => {
    const mebibytes = (q: unknown): number => {
      const m = /^(\d+)(Mi|Gi)$/.exec(str(q, "memory quantity"));
      assert.ok(m !== null, `memory in Mi or Gi: ${String(q)}`);
      return Number(m[1]) * (m[2] === "Gi" ? 1024 : 1);
    };
    const request = mebibytes(at(container, "resources.requests.memory"));
    const limit = mebibytes(at(container, "resources.limits.memory"));
    assert.ok(request > 0 && request <= limit, `request ${request}Mi <= limit ${limit}Mi`);
    assert.match(str(at(container, "resources.requests.cpu"), "cpu request"), /^\d+m$/);
  });
});

describe("deploy/rbac.yaml and deploy/rbac-enforce.yaml", () => {
  const read = loadManifest("rbac.yaml");
  const enforce = loadManifest("rbac-enforce.yaml");
  const sa = one(loadManifest("daemonset.yaml"), "ServiceAccount");
  const subject = {
    kind: "ServiceAccount",
    name: at(sa, "metadata.name"),
    namespace: at(sa, "metadata.namespace"),
  };

  test("shadow mode grants exactly the reads watch needs", () => {
    assert.deepEqual([...grants(roleNamed(read, "evictd-read"))].sort(), [...READ_GRANTS].sort());
    assert.deepEqual([...grants(roleNamed(read, "evictd-nodes-proxy"))].sort(), NODES_PROXY_GRANTS);
    for (const role of byKind(read, "ClusterRole"))
      for (const g of grants(role))
        assert.match(g, /:(get|list|watch)$/, `rbac.yaml grants only reads: ${g}`);
  });

  test("enforce mode grants exactly the kubelet's eviction writes", () => {
    assert.deepEqual([...grants(roleNamed(enforce, "evictd-enforce"))].sort(), [...ENFORCE_GRANTS].sort());
  });

  test("each binding binds a role of its own file to the evictd ServiceAccount only", () => {
    for (const docs of [read, enforce]) {
      const roles = byKind(docs, "ClusterRole").map((r) => at(r, "metadata.name"));
      const bindings = byKind(docs, "ClusterRoleBinding");
      assert.deepEqual(bindings.map((b) => at(b, "roleRef.name")).sort(), [...roles].sort());
      for (const b of bindings) {
        assert.equal(at(b, "roleRef.kind"), "ClusterRole");
        assert.equal(at(b, "roleRef.apiGroup"), "rbac.authorization.k8s.io");
        assert.deepEqual(b["subjects"], [subject]);
      }
    }
  });
});

describe("deploy/node-restriction-policy.yaml", () => {
  const docs = loadManifest("node-restriction-policy.yaml");
  const policy = one(docs, "ValidatingAdmissionPolicy");
  const binding = one(docs, "ValidatingAdmissionPolicyBinding");
  const sa = one(loadManifest("daemonset.yaml"), "ServiceAccount");
  const expressions = (list: unknown): string[] =>
    arr(list, "expressions").map((e) => str(obj(e, "entry")["expression"], "expression"));

  test("is bound, denies, and fails closed", () => {
    assert.equal(at(binding, "spec.policyName"), at(policy, "metadata.name"));
    assert.deepEqual(at(binding, "spec.validationActions"), ["Deny"]);
    assert.equal(at(policy, "spec.failurePolicy"), "Fail");
  });

  test("matches every write the enforce role grants, with the operation it is admitted as", () => {
    const matched = new Set<string>();
    for (const rule of arr(at(policy, "spec.matchConstraints.resourceRules"), "resourceRules").map((r) =>
      obj(r, "rule"),
    ))
      for (const g of arr(rule["apiGroups"], "apiGroups"))
        for (const r of arr(rule["resources"], "resources"))
          for (const op of arr(rule["operations"], "operations"))
            matched.add(`${String(g)}/${String(r)}:${String(op)}`);
    const needed = [...grants(roleNamed(loadManifest("rbac-enforce.yaml"), "evictd-enforce"))].map((g) => {
      const [resource, verb] = g.split(":");
      const op = VERB_OPERATION[verb ?? ""];
      assert.ok(op !== undefined, `verb of ${g}`);
      return `${resource ?? ""}:${op}`;
    });
    assert.deepEqual([...matched].sort(), needed.sort());
  });

  test("applies to the evictd ServiceAccount only and compares against the token's node", () => {
    const user = `system:serviceaccount:${String(at(sa, "metadata.namespace"))}:${String(at(sa, "metadata.name"))}`;
    assert.deepEqual(expressions(at(policy, "spec.matchConditions")), [
      `request.userInfo.username == '${user}'`,
    ]);
    const all = [
      ...expressions(at(policy, "spec.variables")),
      ...expressions(at(policy, "spec.validations")),
    ];
    assert.ok(
      all.some((e) => e.includes("request.userInfo.extra['authentication.kubernetes.io/node-name']")),
    );
    // DELETE has no `object`: the pod's node must come from oldObject.
    assert.ok(all.some((e) => e.includes("oldObject.spec.nodeName")));
    assert.ok(!all.some((e) => e.includes("object.spec.nodeName") && !e.includes("oldObject.spec.nodeName")));
    assert.ok(all.includes("!variables.isPodWrite || variables.podNode == variables.tokenNode"));
    for (const e of all) {
      let depth = 0;
      for (const c of e.replace(/'[^']*'/g, "")) {
        if (c === "(") depth++;
        if (c === ")") depth--;
        assert.ok(depth >= 0, `unbalanced parentheses in ${e}`);
      }
      assert.equal(depth, 0, `unbalanced parentheses in ${e}`);
      assert.equal((e.match(/'/g) ?? []).length % 2, 0, `unbalanced quotes in ${e}`);
    }
  });
});

describe("deploy/helm/evictd", () => {
  const chart = obj(parse(readFileSync(join(CHART, "Chart.yaml"), "utf8")), "Chart.yaml");
  const values = obj(parse(readFileSync(join(CHART, "values.yaml"), "utf8")), "values.yaml");
  const templateDir = join(CHART, "templates");
  const templateFiles = readdirSync(templateDir).sort();
  const templateText = templateFiles.map((f) => readFileSync(join(templateDir, f), "utf8")).join("\n");
  const plainDs = one(loadManifest("daemonset.yaml"), "DaemonSet");
  const plainContainer = obj(arr(at(plainDs, "spec.template.spec.containers"), "containers")[0], "container");
  const plainFlags = parseWatchArgs(arr(plainContainer["args"], "args").map((a) => str(a, "arg")));

  test("Chart.yaml deploys this version of evictd, the image the plain DaemonSet names", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    assert.equal(chart["apiVersion"], "v2");
    assert.equal(chart["name"], "evictd");
    assert.match(str(chart["version"], "version"), /^\d+\.\d+\.\d+$/);
    assert.equal(chart["appVersion"], pkg.version);
    assert.equal(plainContainer["image"], `evictd:${pkg.version}`);
  });

  test("values.yaml defaults to shadow mode with the plain manifests' settings", () => {
    assert.equal(values["enforce"], false);
    assert.equal(values["useEvictionApi"], false);
    assert.equal(values["source"], plainFlags.get("--source"));
    assert.equal(values["interval"], plainFlags.get("--interval"));
    assert.equal(values["stats"], plainFlags.get("--stats"));
    assert.equal(`0.0.0.0:${String(values["port"])}`, plainFlags.get("--listen"));
    assert.equal(at(values, "kubelet.caFile"), plainFlags.get("--kubelet-ca"));
    assert.equal(at(values, "kubelet.insecureSkipTLSVerify"), false);
    assert.equal(typeof at(values, "nodeRestrictionPolicy.enabled"), "boolean");
    assert.equal(typeof at(values, "rbac.nodesProxy"), "boolean");
    assert.ok(str(at(values, "image.repository"), "image.repository").length > 0);
    assert.deepEqual(values["resources"], plainContainer["resources"]);
    assert.deepEqual(values["tolerations"], at(plainDs, "spec.template.spec.tolerations"));
    assert.equal(values["priorityClassName"], at(plainDs, "spec.template.spec.priorityClassName"));
  });

  test("every .Values path the templates use exists, and every top-level value is used", () => {
    const used = [...templateText.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) =>
      (m[1] ?? "").slice(1),
    );
    assert.ok(used.length > 10, "templates read values");
    const missing = [...new Set(used)].filter((p) => !hasPath(values, p.split(".")));
    assert.deepEqual(missing, []);
    const top = new Set(used.map((p) => p.split(".")[0]));
    assert.deepEqual(
      Object.keys(values).filter((k) => !top.has(k)),
      [],
    );
  });

  test("templates, directives removed, parse and use only API-defined fields", () => {
    for (const file of templateFiles.filter((f) => f.endsWith(".yaml"))) {
      const docs = loadTemplate(file);
      assert.ok(docs.length > 0, file);
      assert.deepEqual(
        docs.flatMap((d, i) => manifestProblems(d, `templates/${file}#${i + 1}`, PLACEHOLDER)),
        [],
      );
    }
  });

  test("the templated watch arguments use only evictd watch flags", () => {
    const ds = one(loadTemplate("daemonset.yaml"), "DaemonSet");
    const container = obj(arr(at(ds, "spec.template.spec.containers"), "containers")[0], "container");
    const args = arr(container["args"], "args").map((a) => str(a, "arg"));
    assert.deepEqual(args.slice(0, 3), ["watch", "--node", "$(NODE_NAME)"]);
    for (const a of args.filter((x) => x.startsWith("--")))
      assert.ok(WATCH_FLAGS.has(a), `unknown evictd watch flag ${a} in the chart`);
  });

  test("the chart's roles grant what the plain roles grant (both enforce branches together)", () => {
    const docs = loadTemplate("rbac.yaml");
    const roles = byKind(docs, "ClusterRole");
    const bySuffix = (suffix: string): string[] => {
      const role = roles.find((r) => String(at(r, "metadata.name")).endsWith(suffix));
      assert.ok(role !== undefined, `a ClusterRole *${suffix}`);
      return [...grants(role)].sort();
    };
    assert.deepEqual(bySuffix("-read"), [...READ_GRANTS].sort());
    assert.deepEqual(bySuffix("-nodes-proxy"), NODES_PROXY_GRANTS);
    assert.deepEqual(bySuffix("-enforce"), [...ENFORCE_GRANTS].sort());
  });

  test("the chart's node-restriction policy is the plain one", () => {
    const templated = one(loadTemplate("node-restriction-policy.yaml"), "ValidatingAdmissionPolicy");
    const plain = one(loadManifest("node-restriction-policy.yaml"), "ValidatingAdmissionPolicy");
    for (const path of ["spec.failurePolicy", "spec.matchConstraints", "spec.variables", "spec.validations"])
      assert.deepEqual(at(templated, path), at(plain, path), path);
  });
});
