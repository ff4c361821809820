import { test } from "node:test";
import assert from "node:assert/strict";
import { kubeletAddress } from "./node-address.js";

function node(addresses: unknown, port?: number): unknown {
  return {
    status: {
      addresses,
      ...(port === undefined ? {} : { daemonEndpoints: { kubeletEndpoint: { Port: port } } }),
    },
  };
}

const cases: { name: string; node: unknown; port?: number; want: ReturnType<typeof kubeletAddress> }[] = [
  {
    name: "InternalIP before Hostname, reported port",
    node: node(
      [
        { type: "Hostname", address: "n1" },
        { type: "ExternalIP", address: "203.0.113.1" },
        { type: "InternalIP", address: "10.0.0.5" },
      ],
      10255,
    ),
    want: { ok: true, host: "10.0.0.5", port: 10255 },
  },
  {
    name: "Hostname when there is no InternalIP",
    node: node([{ type: "Hostname", address: "n1" }]),
    want: { ok: true, host: "n1", port: 10250 },
  },
  {
    name: "explicit port wins",
    node: node([{ type: "InternalIP", address: "10.0.0.5" }], 10255),
    port: 4443,
    want: { ok: true, host: "10.0.0.5", port: 4443 },
  },
  {
    name: "port 0 reported means unknown",
    node: node([{ type: "InternalIP", address: "fd00::5" }], 0),
    want: { ok: true, host: "fd00::5", port: 10250 },
  },
  {
    name: "empty addresses are skipped",
    node: node([
      { type: "InternalIP", address: "" },
      { type: "Hostname", address: "n1" },
    ]),
    want: { ok: true, host: "n1", port: 10250 },
  },
  {
    name: "only external addresses",
    node: node([{ type: "ExternalIP", address: "203.0.113.1" }]),
    want: {
      ok: false,
      problem: "the Node has no InternalIP or Hostname address (status.addresses: ExternalIP)",
    },
  },
  {
    name: "no status at all",
    node: {},
    want: { ok: false, problem: "the Node has no InternalIP or Hostname address (status.addresses: none)" },
  },
];
for (const c of cases) {
  test(c.name, () => {
    assert.deepEqual(kubeletAddress(c.node, c.port), c.want);
  });
}
