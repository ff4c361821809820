/**
 * A bearer token kept in a file (kubeconfig `tokenFile`): read before the first request, so a file
 * that is missing, a directory, unreadable or empty is named at once and no request goes out
 * without the credentials the user meant to send; then read again every minute, as client-go does,
 * so a rotated token is picked up. Surrounding whitespace (a trailing newline) is dropped.
 */
import { readFileSync, statSync } from "node:fs";
import { AdapterError } from "../errors.js";
import { describeReadError } from "../formats/structured-file.js";

/** How long a token read from its file is used before the file is read again (client-go's period). */
export const TOKEN_FILE_REREAD_MS = 60_000;

/** The token in `file`; throws AdapterError `kube-credentials` naming the file and `owner`. */
export function readTokenFile(file: string, owner: string): string {
  const refuse = (why: string, cause?: unknown): AdapterError =>
    new AdapterError("kube-credentials", `cannot read the token file ${file} of ${owner}: ${why}`, {
      hint: "fix the path or the file's permissions, or give the token another way",
      ...(cause === undefined ? {} : { cause }),
    });
  let text: string;
  try {
    // Reading a FIFO would wait for a writer; a token is a regular file (or a link to one).
    const stat = statSync(file);
    if (stat.isDirectory()) throw refuse("it is a directory, not a file");
    if (!stat.isFile()) throw refuse("it is not a regular file");
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof AdapterError) throw error;
    throw refuse(describeReadError(error).message, error);
  }
  const token = text.trim();
  if (token === "") throw refuse("the file is empty");
  // A header value cannot hold these; sending it would fail on the header, not on the token.
  if (/[\s\p{Cc}]/u.test(token)) throw refuse("the token holds spaces or control characters");
  return token;
}

/** A token file read now and again every {@link TOKEN_FILE_REREAD_MS}. */
export class TokenFile {
  readonly path: string;
  readonly #owner: string;
  readonly #now: () => number;
  #token: string;
  #readAt: number;

  /** Reads the file at once: throws AdapterError if it cannot be used. */
  constructor(path: string, owner: string, now: () => number = Date.now) {
    this.path = path;
    this.#owner = owner;
    this.#now = now;
    this.#token = readTokenFile(path, owner);
    this.#readAt = now();
  }

  /** The current token; throws AdapterError when the file has become unusable. */
  token(): string {
    if (this.#now() - this.#readAt >= TOKEN_FILE_REREAD_MS) {
      this.#token = readTokenFile(this.path, this.#owner);
      this.#readAt = this.#now();
    }
    return this.#token;
  }
}
