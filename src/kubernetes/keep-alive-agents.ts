/**
 * One keep-alive agent per TLS identity. client-node hands out a new agent with every set of
 * credentials it applies, and node's agents close their connection after each request unless told
 * otherwise: each API call then opened a connection and made a TLS handshake (its key exchange's
 * CPU even on loopback, two more round trips on a real network), the eviction a memory wake sends
 * too. Requests with the same TLS material share one agent that keeps its connections open; new
 * material (a rotated client certificate, another CA) gets a new agent. Proxy agents are used as
 * client-node made them.
 */
import http from "node:http";
import https from "node:https";

/** TLS options that decide who a connection is: requests with equal ones may share it. */
const IDENTITY_OPTIONS = [
  "ca",
  "cert",
  "key",
  "pfx",
  "passphrase",
  "rejectUnauthorized",
  "servername",
  "ciphers",
  "ecdhCurve",
  "crl",
  "secureProtocol",
  "minVersion",
  "maxVersion",
] as const;

export class KeepAliveAgents {
  #key: string | undefined;
  #agent: http.Agent | undefined;

  /** A keep-alive agent that connects as `agent` would: the last one when its TLS material is the same. */
  reuse(agent: http.Agent): http.Agent {
    const plain = agent.constructor === http.Agent;
    if (!plain && agent.constructor !== https.Agent) return agent;
    const options = plain ? {} : (agent as https.Agent).options;
    const key = plain ? "http" : identityKey(options);
    if (key === this.#key && this.#agent !== undefined) return this.#agent;
    const previous = this.#agent;
    this.#key = key;
    this.#agent = plain
      ? new http.Agent({ keepAlive: true })
      : new https.Agent({ ...options, keepAlive: true });
    // Its idle connections belong to credentials no longer in use; requests under way (a watch)
    // keep theirs until they end.
    if (previous !== undefined) closeIdle(previous);
    return this.#agent;
  }

  /** Closes the kept connections (the command is ending). */
  close(): void {
    this.#agent?.destroy();
    this.#agent = undefined;
    this.#key = undefined;
  }
}

function closeIdle(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets))
    for (const socket of sockets ?? []) socket.destroy();
}

function identityKey(options: https.AgentOptions): string {
  const record = options as Readonly<Record<string, unknown>>;
  return JSON.stringify(IDENTITY_OPTIONS.map((name) => material(record[name])));
}

function material(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString("base64");
  if (Array.isArray(value)) return value.map(material);
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return value ?? null;
}
