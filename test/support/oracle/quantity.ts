/**
 * Kubernetes quantities (`128Mi`, `100m`, `1.5e3`) read by the tests' own oracle, apart from
 * src/core/quantity.ts so that the suites check the engine against an independent reading: exact
 * rationals, no rounding unless asked for.
 */

/** An exact value: `num / den`, `den` > 0. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

const BINARY_SUFFIX: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXPONENT: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const QUANTITY =
  /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?[0-9]+))?$/;

/** A quantity string as an exact rational; undefined when it is not a quantity. */
export function parseQuantity(text: string): Rational | undefined {
  const m = QUANTITY.exec(text.trim());
  if (m === null) return undefined;
  const [, sign = "", whole = "", frac = "", suffix, exponent] = m;
  if (whole === "" && frac === "") return undefined;
  let num = BigInt(`${whole}${frac}` || "0") * (sign === "-" ? -1n : 1n);
  let den = 10n ** BigInt(frac.length);
  let exp = 0;
  if (suffix !== undefined && suffix in BINARY_SUFFIX) num *= BINARY_SUFFIX[suffix] ?? 1n;
  else if (suffix !== undefined) exp = DECIMAL_EXPONENT[suffix] ?? 0;
  else if (exponent !== undefined) exp = Number.parseInt(exponent, 10);
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den *= 10n ** BigInt(-exp);
  return { num, den };
}

/** Both are quantities with the same value (`1Gi` = `1024Mi` = `1073741824`). */
export function sameQuantity(a: string, b: string): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  return x !== undefined && y !== undefined && x.num * y.den === y.num * x.den;
}

/**
 * A quantity in milli-units, rounded away from zero as the API server stores spec quantities
 * (`Quantity.RoundUp(-3)`: `100u` is `1m`); throws on a non-quantity.
 */
export function quantityMilli(text: string): bigint {
  const q = parseQuantity(text);
  if (q === undefined) throw new Error(`not a quantity: ${JSON.stringify(text)}`);
  const scaled = q.num * 1000n;
  const magnitude = scaled < 0n ? -scaled : scaled;
  const up = (magnitude + q.den - 1n) / q.den;
  return scaled < 0n ? -up : up;
}
