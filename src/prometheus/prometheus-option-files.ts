/**
 * The files the Prometheus client's options name: the CA bundle of `--ca-file` (read once, at
 * connect) and the token of `--bearer-token-file` (read for every request: mounted tokens rotate).
 * A file that cannot be used is an AdapterError naming the file, the option and why, never what the
 * file holds.
 */
import { readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { AdapterError, errnoCode } from "../errors.js";

/** The CA bundle in `file` (PEM); AdapterError naming the file and why. */
export function readCaFile(file: string): Buffer {
  const refuse = (why: string, cause?: unknown): AdapterError =>
    new AdapterError("prometheus-ca-file", `cannot use --ca-file ${file}: ${why}`, {
      hint: "give the PEM file of the CA that signed Prometheus' certificate",
      ...(cause === undefined ? {} : { cause }),
    });
  let pem: Buffer;
  try {
    if (!statSync(file).isFile()) throw refuse("not a regular file");
    pem = readFileSync(file);
  } catch (error) {
    if (error instanceof AdapterError) throw error;
    throw refuse(describeFsError(error), error);
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw refuse("it holds no PEM certificate");
  return pem;
}

/** The token in `file`; AdapterError naming the file and why, never what it holds. */
export async function readToken(file: string): Promise<string> {
  const refuse = (why: string, cause?: unknown): AdapterError =>
    new AdapterError("prometheus-token-file", `cannot use --bearer-token-file ${file}: ${why}`, {
      hint: "fix the path or the file's permissions",
      ...(cause === undefined ? {} : { cause }),
    });
  let text: string;
  try {
    // Reading a FIFO would wait for a writer; a token is a regular file (or a link to one).
    if (!(await stat(file)).isFile()) throw refuse("not a regular file");
    text = await readFile(file, "utf8");
  } catch (error) {
    if (error instanceof AdapterError) throw error;
    throw refuse(describeFsError(error), error);
  }
  const token = text.trim();
  if (token === "") throw refuse("the file is empty");
  // A header cannot hold these: the request would fail on the header, not on the token.
  if (/[\s\p{Cc}]/u.test(token)) throw refuse("the token holds spaces or control characters");
  return token;
}

function describeFsError(error: unknown): string {
  const code = errnoCode(error);
  switch (code) {
    case "ENOENT":
      return "ENOENT (no such file)";
    case "EACCES":
    case "EPERM":
      return `${code} (permission denied)`;
    case "EISDIR":
      return "EISDIR (a directory, not a file)";
    default:
      return `${code ?? "error"} (${error instanceof Error ? error.message : String(error)})`;
  }
}
