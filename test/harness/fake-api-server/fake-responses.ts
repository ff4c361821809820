/** HTTP plumbing of the fake API server: reading bodies and writing JSON, text and meta/v1 Status answers. */
import type http from "node:http";

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function tryJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(value));
}

export function sendRaw(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "Content-Type": "application/json" }).end(text);
}

export function sendText(
  res: http.ServerResponse,
  status: number,
  text: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res
    .writeHead(status, {
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
      ...headers,
    })
    .end(`${text}\n`);
}

export function sendStatus(
  res: http.ServerResponse,
  code: number,
  reason: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    ...(reason === "" ? {} : { reason }),
    code,
  };
  res.writeHead(code, { "Content-Type": "application/json", ...headers }).end(JSON.stringify(body));
}

export function notFound(res: http.ServerResponse, resource: string, name: string | undefined): void {
  const decoded = decodeURIComponent(name ?? "");
  res.writeHead(404, { "Content-Type": "application/json" }).end(
    JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `${resource} "${decoded}" not found`,
      reason: "NotFound",
      details: { name: decoded, kind: resource },
      code: 404,
    }),
  );
}
