// Property: no input makes a reader throw. Arbitrary scenarios, summaries and pods come back as a
// value or as issues; a thrown error here would surface as a stack trace and exit code 1.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { loadScenarioText } from "../../src/formats/scenario/load-scenario.js";
import { configRecord, stepRecord } from "../../src/app/replay/records.js";
import { planReplay, runReplay } from "../../src/app/replay/run-replay.js";
import { IssueList } from "../../src/core/issues.js";
import { decodePodList } from "../../src/core/pod/decode-pod.js";
import { validateSummary } from "../../src/core/summary/validate-summary.js";

// Values shaped like the real thing, with any leaf replaced by junk, reach deeper than pure noise.
const junk = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.constantFrom("1Gi", "10%", "30s", "-5", "1e400", "0%", "NaN%", "", "\u0000", "18446744073709551615"),
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
);
const quantityish = fc.oneof(junk, fc.constantFrom("100Mi", "500m", "1.5Gi", "2"));
const pod = fc.record(
  {
    metadata: fc.record(
      { name: fc.oneof(fc.string(), junk), namespace: junk, uid: junk, annotations: junk },
      { requiredKeys: [] },
    ),
    spec: fc.record(
      {
        priority: junk,
        priorityClassName: junk,
        terminationGracePeriodSeconds: junk,
        containers: fc.array(
          fc.record(
            {
              name: junk,
              resources: fc.record(
                {
                  requests: fc.dictionary(fc.constantFrom("memory", "cpu", "ephemeral-storage"), quantityish),
                  limits: junk,
                },
                { requiredKeys: [] },
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        volumes: fc.array(
          fc.record(
            {
              name: junk,
              emptyDir: fc.record({ sizeLimit: quantityish, medium: junk }, { requiredKeys: [] }),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        tolerations: junk,
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const fsStats = fc.record(
  { availableBytes: junk, capacityBytes: junk, inodesFree: junk, inodes: junk, time: junk },
  { requiredKeys: [] },
);
const summary = fc.record(
  {
    node: fc.record(
      {
        memory: fc.record({ availableBytes: junk, workingSetBytes: junk, time: junk }, { requiredKeys: [] }),
        fs: fsStats,
        runtime: fc.record({ imageFs: fsStats }, { requiredKeys: [] }),
        rlimit: junk,
        systemContainers: junk,
      },
      { requiredKeys: [] },
    ),
    pods: fc.oneof(
      junk,
      fc.array(
        fc.record({ podRef: junk, memory: junk, containers: junk, volume: junk }, { requiredKeys: [] }),
        { maxLength: 3 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const scenario = fc.record(
  {
    start: junk,
    config: fc.oneof(
      junk,
      fc.record(
        {
          evictionHard: fc.dictionary(
            fc.constantFrom("memory.available", "nodefs.available", "foo"),
            quantityish,
          ),
          evictionSoft: junk,
          evictionSoftGracePeriod: junk,
          evictionMaxPodGracePeriod: junk,
        },
        { requiredKeys: [] },
      ),
    ),
    flags: junk,
    filesystems: junk,
    evictedPods: junk,
    pods: fc.oneof(junk, fc.array(pod, { maxLength: 3 })),
    steps: fc.oneof(
      junk,
      fc.array(
        fc.record(
          {
            at: fc.oneof(junk, fc.constantFrom("0s", "10s", "1m")),
            summary: fc.oneof(junk, summary),
            admit: fc.oneof(junk, fc.array(pod, { maxLength: 2 })),
            removePods: junk,
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
    ),
  },
  { requiredKeys: [] },
);

const stringify = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x));

describe("readers never throw", () => {
  test("pod lists", () => {
    fc.assert(
      fc.property(fc.oneof(junk, fc.array(pod, { maxLength: 4 })), (raw) => {
        const issues = new IssueList();
        decodePodList(raw, "pods", issues);
      }),
      { numRuns: 400 },
    );
  });

  test("summaries", () => {
    fc.assert(
      fc.property(fc.oneof(junk, summary), (raw) => {
        validateSummary(raw, "summary", new IssueList());
      }),
      { numRuns: 400 },
    );
  });

  test("whole scenarios, as JSON and as arbitrary text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(scenario.map(stringify), fc.string(), fc.string({ unit: "binary" })),
        async (text) => {
          const r = await loadScenarioText(text, "fuzz.json", process.cwd());
          if (!r.ok) {
            assert.ok(r.issues.length > 0, "a rejected scenario names at least one problem");
            for (const i of r.issues) assert.ok(i.message.length > 0 && i.path.length > 0);
            return;
          }
          // An accepted scenario replays to the end.
          const plan = planReplay(r.scenario);
          JSON.stringify(configRecord(r.scenario, plan));
          let steps = 0;
          runReplay(r.scenario, plan, (o) => {
            JSON.stringify(stepRecord(o));
            steps++;
          });
          assert.equal(steps, r.scenario.steps.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
