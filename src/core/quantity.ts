/**
 * Kubernetes resource quantities, exactly as apimachinery's `resource.Quantity` parses, compares and
 * prints them. Values are exact decimals (never JS floats): byte and inode counts above 2^53 occur in
 * real data.
 *
 * CONTRACT (other modules code against these exports; keep them stable):
 * - parseQuantity(text) -> Quantity, or throws QuantityError with apimachinery's exact message.
 * - formatQuantity(q) -> canonical string (Quantity.String()).
 * - quantityFromInt(n, format) -> Quantity holding the integer n.
 * - quantityValue(q) -> bigint, rounded up (Quantity.Value()).
 * - cmpQuantity(a, b) -> -1 | 0 | 1 exact; addQuantity(a, b) keeps a's format; quantitySign(q).
 */

/** How a quantity prints: base-1024 suffixes, base-1000 suffixes, or an `e` exponent. */
export type QuantityFormat = "BinarySI" | "DecimalSI" | "DecimalExponent";

/** An exact decimal value `unscaled × 10^scale`, with the format it prints in. */
export interface Quantity {
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  /** The user's spelling, kept only when it is already canonical (upstream keeps it too). */
  readonly text?: string;
}

/** A quantity string that apimachinery would reject; `message` is upstream's exact text. */
export class QuantityError extends Error {
  readonly code = "quantity";
  constructor(
    message: string,
    readonly input: string,
  ) {
    super(message);
    this.name = "QuantityError";
  }
}

export function parseQuantity(_text: string): Quantity {
  throw new Error("parseQuantity: not implemented yet");
}

export function formatQuantity(_q: Quantity): string {
  throw new Error("formatQuantity: not implemented yet");
}

export function quantityFromInt(_n: bigint, _format: QuantityFormat): Quantity {
  throw new Error("quantityFromInt: not implemented yet");
}

export function quantityValue(_q: Quantity): bigint {
  throw new Error("quantityValue: not implemented yet");
}

export function cmpQuantity(_a: Quantity, _b: Quantity): -1 | 0 | 1 {
  throw new Error("cmpQuantity: not implemented yet");
}

export function addQuantity(_a: Quantity, _b: Quantity): Quantity {
  throw new Error("addQuantity: not implemented yet");
}

export function quantitySign(_q: Quantity): -1 | 0 | 1 {
  throw new Error("quantitySign: not implemented yet");
}
