// Tests for toleration matching against a taint.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Toleration } from "../model.js";
import { toleratesTaint, type Taint } from "./tolerations.js";

const MEMORY: Taint = { key: "node.kubernetes.io/memory-pressure", effect: "NoSchedule" };
const KEY = MEMORY.key;

const cases: { name: string; tolerations: Toleration[]; taint?: Taint; want: boolean }[] = [
  { name: "no tolerations", tolerations: [], want: false },
  {
    name: "key + Exists + NoSchedule",
    tolerations: [{ key: KEY, operator: "Exists", effect: "NoSchedule" }],
    want: true,
  },
  { name: "key + Exists, any effect", tolerations: [{ key: KEY, operator: "Exists" }], want: true },
  { name: "empty key + Exists tolerates everything", tolerations: [{ operator: "Exists" }], want: true },
  {
    name: "key + Equal with empty value",
    tolerations: [{ key: KEY, operator: "Equal", effect: "NoSchedule" }],
    want: true,
  },
  { name: "key + empty operator means Equal", tolerations: [{ key: KEY }], want: true },
  {
    name: "key + Equal with another value",
    tolerations: [{ key: KEY, operator: "Equal", value: "x" }],
    want: false,
  },
  { name: "wrong effect", tolerations: [{ key: KEY, operator: "Exists", effect: "NoExecute" }], want: false },
  {
    name: "other key",
    tolerations: [{ key: "node.kubernetes.io/disk-pressure", operator: "Exists" }],
    want: false,
  },
  { name: "unknown operator", tolerations: [{ key: KEY, operator: "Lt", value: "5" }], want: false },
  {
    name: "any matching toleration is enough",
    tolerations: [
      { key: "other", operator: "Exists" },
      { key: KEY, operator: "Exists" },
    ],
    want: true,
  },
  {
    name: "valued taint needs the value",
    tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu" }],
    taint: { key: "dedicated", value: "gpu", effect: "NoSchedule" },
    want: true,
  },
  {
    name: "valued taint, other value",
    tolerations: [{ key: "dedicated", operator: "Equal", value: "db" }],
    taint: { key: "dedicated", value: "gpu", effect: "NoSchedule" },
    want: false,
  },
];

for (const c of cases) {
  test(`toleratesTaint: ${c.name}`, () => {
    assert.equal(toleratesTaint(c.tolerations, c.taint ?? MEMORY), c.want);
  });
}
