/**
 * Whether a document meant as a KubeletConfiguration is an `evictd run` node file instead, and
 * what says so. Read as a KubeletConfiguration, a node file yields only "unknown field" warnings
 * and the kubelet's defaults (its eviction settings sit under `config`, one level down), which
 * would be printed as if they were the node's. It is a node file when its kind or apiVersion is
 * the node file's, or, with neither given (both are optional in a node file), when it has a field
 * only a node file has: `capacity`, `stateDir` or `manifestDir`. None of these is a
 * KubeletConfiguration field, so a kubelet's config never matches.
 */
import { isRawObject } from "../raw/raw-object.js";
import { NODE_FILE_API_VERSION, NODE_FILE_KIND } from "./node-spec.js";

const NODE_FILE_ONLY_FIELDS = ["capacity", "stateDir", "manifestDir"] as const;

/** What marks `doc` as a node file (`kind EvictdNode`, `fields capacity, stateDir`), or undefined. */
export function nodeFileEvidence(doc: unknown): string | undefined {
  if (!isRawObject(doc)) return undefined;
  if (doc["kind"] === NODE_FILE_KIND) return `kind ${NODE_FILE_KIND}`;
  if (doc["apiVersion"] === NODE_FILE_API_VERSION) return `apiVersion ${NODE_FILE_API_VERSION}`;
  if (doc["kind"] !== undefined || doc["apiVersion"] !== undefined) return undefined;
  const fields = NODE_FILE_ONLY_FIELDS.filter((f) => doc[f] !== undefined);
  return fields.length > 0 ? `node file fields ${fields.join(", ")}` : undefined;
}
