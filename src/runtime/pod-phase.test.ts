/** The kubelet's phase rules, case by case. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { podPhase, type ContainerPhaseState, type PhaseInput, type PodPhase } from "./pod-phase.js";

const running: ContainerPhaseState = { state: "running" };
const exited = (exitCode: number): ContainerPhaseState => ({ state: "terminated", exitCode });
const backingOff = (lastExitCode: number): ContainerPhaseState => ({ state: "waiting", lastExitCode });
const neverRan: ContainerPhaseState = { state: "waiting" };

const base: PhaseInput = {
  restartPolicy: "Always",
  initContainers: [],
  containers: [],
  podHasInitialized: true,
  podIsTerminal: false,
};

const cases: { name: string; input: Partial<PhaseInput>; want: PodPhase }[] = [
  { name: "every container running", input: { containers: [running, running] }, want: "Running" },
  { name: "one container not created yet", input: { containers: [running, undefined] }, want: "Pending" },
  {
    name: "one container waiting to start for the first time",
    input: { containers: [running, neverRan] },
    want: "Pending",
  },
  {
    name: "Always: all exited 0, they will restart",
    input: { containers: [exited(0), exited(0)] },
    want: "Running",
  },
  {
    name: "Always: crash-looping (waiting after a run)",
    input: { containers: [backingOff(1)] },
    want: "Running",
  },
  {
    name: "OnFailure: all exited 0",
    input: { restartPolicy: "OnFailure", containers: [exited(0), exited(0)] },
    want: "Succeeded",
  },
  {
    name: "OnFailure: one failed, it will restart",
    input: { restartPolicy: "OnFailure", containers: [exited(0), exited(2)] },
    want: "Running",
  },
  {
    name: "Never: one failed",
    input: { restartPolicy: "Never", containers: [exited(0), exited(2)] },
    want: "Failed",
  },
  {
    name: "Never: all exited 0",
    input: { restartPolicy: "Never", containers: [exited(0)] },
    want: "Succeeded",
  },
  {
    name: "Never: one still running",
    input: { restartPolicy: "Never", containers: [exited(1), running] },
    want: "Running",
  },
  {
    name: "terminal: all exited 0 under Always",
    input: { podIsTerminal: true, containers: [exited(0)] },
    want: "Succeeded",
  },
  {
    name: "terminal: one failed under Always",
    input: { podIsTerminal: true, containers: [exited(0), exited(137)] },
    want: "Failed",
  },
  {
    name: "terminal: waiting after a successful run is stopped but not succeeded",
    input: { podIsTerminal: true, containers: [backingOff(0)] },
    want: "Failed",
  },
  {
    name: "init container running",
    input: {
      podHasInitialized: false,
      initContainers: [{ sidecar: false, status: running }],
      containers: [undefined],
    },
    want: "Pending",
  },
  {
    name: "init container failed under Never",
    input: {
      restartPolicy: "Never",
      podHasInitialized: false,
      initContainers: [{ sidecar: false, status: exited(1) }],
      containers: [undefined],
    },
    want: "Failed",
  },
  {
    name: "init container failed (backing off) under OnFailure",
    input: {
      restartPolicy: "OnFailure",
      podHasInitialized: false,
      initContainers: [{ sidecar: false, status: backingOff(1) }],
      containers: [undefined],
    },
    want: "Pending",
  },
  {
    name: "sidecar not started before initialisation",
    input: {
      podHasInitialized: false,
      initContainers: [{ sidecar: true, status: undefined }],
      containers: [undefined],
    },
    want: "Pending",
  },
  {
    name: "a sidecar's exit does not count once the pod has initialised",
    input: {
      restartPolicy: "Never",
      initContainers: [{ sidecar: true, status: exited(1) }],
      containers: [exited(0)],
    },
    want: "Succeeded",
  },
  { name: "no status at all", input: { containers: [undefined] }, want: "Pending" },
];

describe("podPhase", () => {
  for (const c of cases) {
    test(c.name, () => assert.equal(podPhase({ ...base, ...c.input }), c.want));
  }
});
