/** The pod action planner: init order, sidecars, restart policies, completion. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { computePodActions, type PlannedContainer, type PodActions } from "./pod-actions.js";
import type { PodRestartPolicy } from "./runnable-pod.js";

type Spec = [
  name: string,
  kind: PlannedContainer["kind"],
  state: PlannedContainer["state"],
  exitCode?: number,
  timer?: boolean,
];
const containers = (...specs: Spec[]): PlannedContainer[] =>
  specs.map(([name, kind, state, exitCode, timer]) => ({
    name,
    kind,
    state,
    exitCode,
    timerPending: timer ?? false,
  }));

const cases: {
  name: string;
  policy: PodRestartPolicy;
  initialized: boolean;
  containers: PlannedContainer[];
  want: PodActions;
}[] = [
  {
    name: "a new pod starts its first init container only",
    policy: "Always",
    initialized: false,
    containers: containers(
      ["i1", "init", "unstarted"],
      ["i2", "init", "unstarted"],
      ["app", "regular", "unstarted"],
    ),
    want: { start: ["i1"], backOff: [], initialized: false, complete: false },
  },
  {
    name: "the next init container starts once the previous exited 0",
    policy: "Always",
    initialized: false,
    containers: containers(
      ["i1", "init", "terminated", 0],
      ["i2", "init", "unstarted"],
      ["app", "regular", "unstarted"],
    ),
    want: { start: ["i2"], backOff: [], initialized: false, complete: false },
  },
  {
    name: "a sidecar is started in its turn and the next init container right after it",
    policy: "Never",
    initialized: false,
    containers: containers(
      ["side", "sidecar", "unstarted"],
      ["i1", "init", "unstarted"],
      ["app", "regular", "unstarted"],
    ),
    want: { start: ["side", "i1"], backOff: [], initialized: false, complete: false },
  },
  {
    name: "a failed init container is retried under OnFailure",
    policy: "OnFailure",
    initialized: false,
    containers: containers(["i1", "init", "terminated", 1], ["app", "regular", "unstarted"]),
    want: { start: [], backOff: ["i1"], initialized: false, complete: false },
  },
  {
    name: "a failed init container fails the pod under Never",
    policy: "Never",
    initialized: false,
    containers: containers(["i1", "init", "terminated", 1], ["app", "regular", "unstarted"]),
    want: { start: [], backOff: [], initialized: false, complete: true },
  },
  {
    name: "init done: regular containers start, the running sidecar is left alone",
    policy: "Always",
    initialized: false,
    containers: containers(
      ["side", "sidecar", "running"],
      ["i1", "init", "terminated", 0],
      ["a", "regular", "unstarted"],
      ["b", "regular", "unstarted"],
    ),
    want: { start: ["a", "b"], backOff: [], initialized: true, complete: false },
  },
  {
    name: "Always restarts an exit 0; a container already backing off gets no second timer",
    policy: "Always",
    initialized: true,
    containers: containers(["a", "regular", "terminated", 0], ["b", "regular", "waiting", 1, true]),
    want: { start: [], backOff: ["a"], initialized: true, complete: false },
  },
  {
    name: "a waiting container without a timer (restored after a restart) is backed off",
    policy: "Always",
    initialized: true,
    containers: containers(["a", "regular", "waiting", 1, false]),
    want: { start: [], backOff: ["a"], initialized: true, complete: false },
  },
  {
    name: "OnFailure: the failure restarts, the success stays; not complete",
    policy: "OnFailure",
    initialized: true,
    containers: containers(["a", "regular", "terminated", 0], ["b", "regular", "terminated", 2]),
    want: { start: [], backOff: ["b"], initialized: true, complete: false },
  },
  {
    name: "Never: every regular container exited: complete, a sidecar's exit is restarted meanwhile",
    policy: "Never",
    initialized: true,
    containers: containers(
      ["side", "sidecar", "terminated", 143],
      ["a", "regular", "terminated", 0],
      ["b", "regular", "terminated", 2],
    ),
    want: { start: [], backOff: ["side"], initialized: true, complete: true },
  },
  {
    name: "OnFailure: all exited 0: complete",
    policy: "OnFailure",
    initialized: true,
    containers: containers(["a", "regular", "terminated", 0]),
    want: { start: [], backOff: [], initialized: true, complete: true },
  },
];

describe("computePodActions", () => {
  for (const c of cases)
    test(c.name, () => assert.deepEqual(computePodActions(c.policy, c.containers, c.initialized), c.want));
});
