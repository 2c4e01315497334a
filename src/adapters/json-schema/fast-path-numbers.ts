/**
 * "multipleOf" as @cfworker/json-schema decides it, for the fast path. cfworker does not divide
 * floats (0.3 / 0.1 is not 3 in binary): it reads both numbers as decimal coefficient × 10^exponent
 * from their shortest decimal text and compares the coefficients as bigints. Verdicts must not
 * drift from cfworker's, so this is the same algorithm step for step (its `isMultipleOf` is not
 * exported), plus one shortcut that provably agrees with it.
 */

type Decimal = readonly [coefficient: bigint, exponent: number];

/** |value| as coefficient × 10^exponent, read from its decimal text exactly as cfworker does. */
function decimalOf(value: number): Decimal {
  const [coefficient = "", exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient.indexOf(".");
  const fractionLength = point === -1 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace(".", "")), Number(exponent) - fractionLength];
}

/**
 * A test "is a multiple of `divisor`", for a divisor the schema gives. Returns undefined for a
 * divisor cfworker rejects every number against (not finite or not positive), which the caller
 * leaves to cfworker.
 */
export function multipleOfTest(divisor: number): ((value: number) => boolean) | undefined {
  if (!Number.isFinite(divisor) || divisor <= 0) return undefined;
  const [divisorCoefficient, divisorExponent] = decimalOf(divisor);
  const divisorIsSafeInteger = Number.isSafeInteger(divisor);
  return (value) => {
    // Two safe integers: their decimal text has no fraction and no exponent (it is below 1e21),
    // so cfworker's bigints are the numbers themselves and `%` on them is exact.
    if (divisorIsSafeInteger && Number.isSafeInteger(value)) return value % divisor === 0;
    if (!Number.isFinite(value)) return false;
    const [coefficient, exponent] = decimalOf(value);
    const difference = exponent - divisorExponent;
    if (difference >= 0) return (coefficient * 10n ** BigInt(difference)) % divisorCoefficient === 0n;
    return coefficient % (divisorCoefficient * 10n ** BigInt(-difference)) === 0n;
  };
}
