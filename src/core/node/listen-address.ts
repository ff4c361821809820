/** `host:port` listen addresses (IPv6 hosts in brackets), as the node file and `evictd watch --listen` take them. */

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** The address, or a message saying what was expected; an empty host means 127.0.0.1, port 0 a free port. */
export function parseListenAddress(text: string): ListenAddress | { readonly error: string } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535)
    return { error: `expected "host:port" with a port from 0 to 65535, got ${JSON.stringify(text)}` };
  return { host: m[1] ?? (m[2] === "" || m[2] === undefined ? "127.0.0.1" : m[2]), port };
}
