/**
 * Checks a parsed Kubernetes object against the API models of @kubernetes/client-node (generated
 * from the Kubernetes 1.34 OpenAPI): every field must be one the API defines, with a value of the
 * right JSON type. The deploy/ suites use it for every manifest they ship.
 */
import * as k8s from "@kubernetes/client-node";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

interface Attribute {
  readonly baseName: string;
  readonly type: string;
}

function modelAttributes(type: string): readonly Attribute[] | undefined {
  const model = (k8s as unknown as Record<string, unknown>)[type];
  if (typeof model !== "function") return undefined;
  const map = (model as { attributeTypeMap?: unknown }).attributeTypeMap;
  return Array.isArray(map) ? (map as Attribute[]) : undefined;
}

/**
 * Problems of `value` as an instance of the model `type`: fields the API does not define and values
 * of the wrong JSON type. Null is accepted anywhere (the API reads it as unset). `placeholder`, when
 * given, stands for a template expression and is accepted for any type.
 */
export function modelProblems(value: unknown, type: string, path: string, placeholder?: string): string[] {
  if (value === null || value === undefined || type === "any") return [];
  if (placeholder !== undefined && value === placeholder) return [];
  const wrong = (expected: string): string[] => [
    `${path}: expected ${expected}, got ${JSON.stringify(value)}`,
  ];
  switch (type) {
    case "string":
    case "Date":
      return typeof value === "string" ? [] : wrong("a string");
    case "number":
      return typeof value === "number" ? [] : wrong("a number");
    case "boolean":
      return typeof value === "boolean" ? [] : wrong("a boolean");
    case "IntOrString":
      return typeof value === "number" || typeof value === "string" ? [] : wrong("an integer or a string");
  }
  const list = /^Array<(.+)>$/.exec(type);
  if (list !== null) {
    if (!Array.isArray(value)) return wrong("a list");
    return value.flatMap((item, i) => modelProblems(item, list[1] ?? "", `${path}[${i}]`, placeholder));
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map !== null) {
    if (!isObject(value)) return wrong("a map");
    return Object.entries(value).flatMap(([k, v]) =>
      modelProblems(v, map[1] ?? "", `${path}.${k}`, placeholder),
    );
  }
  const attributes = modelAttributes(type);
  if (attributes === undefined) return [`${path}: no API model ${type} in @kubernetes/client-node`];
  if (!isObject(value)) return wrong(`an object (${type})`);
  return Object.entries(value).flatMap(([key, v]) => {
    const attribute = attributes.find((a) => a.baseName === key);
    return attribute === undefined
      ? [`${path}.${key}: not a field of ${type}`]
      : modelProblems(v, attribute.type, `${path}.${key}`, placeholder);
  });
}
