/**
 * `--url`, Prometheus' base URL: checked, and split into the URL requests go to and the basic auth
 * header the credentials written in it make. Every message shows the URL without its user name or
 * password, and a value that is not a URL with anything that may be credentials masked.
 */
import { AdapterError } from "../errors.js";

/** The base URL without credentials and the basic auth header they make; AdapterError if unusable. */
export function parseBaseUrl(value: string): { base: URL; basicAuth: string | undefined } {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new AdapterError("prometheus-url", `--url ${redact(value)} is not a URL`, {
      hint: "give Prometheus' base URL, e.g. http://prometheus:9090",
      cause: error,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AdapterError("prometheus-url", `--url ${redact(value)} is not an http or https URL`, {
      hint: "give Prometheus' base URL, e.g. http://prometheus:9090",
    });
  }
  if (url.search !== "" || url.hash !== "") {
    throw new AdapterError("prometheus-url", `--url ${shownUrl(url)} has a query or a fragment`, {
      hint: "give the base URL only; the API paths are added to it",
    });
  }
  let basicAuth: string | undefined;
  if (url.username !== "" || url.password !== "") {
    let credentials: string;
    try {
      credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    } catch {
      throw new AdapterError("prometheus-url", `--url ${shownUrl(url)} has badly %-encoded credentials`, {
        hint: "write each % in the user name or password as %25",
      });
    }
    basicAuth = `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
  }
  const base = new URL(`${url.origin}${url.pathname}`);
  return { base, basicAuth };
}

/** `--url` as a trace header or a log line may carry it: never its user name or password. */
export function redactedUrl(value: string): string {
  try {
    return shownUrl(new URL(value));
  } catch {
    return redact(value);
  }
}

/** A URL as shown in messages: never its user name or password. */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
}

/** A string that did not parse as an http(s) URL, with anything that may be credentials masked. */
function redact(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?.*@/is, "$1<credentials>@");
}
