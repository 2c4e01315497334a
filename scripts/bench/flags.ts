/** Command-line flags of the benchmarks: `--name value`, with a fallback when absent or unusable. */

export function stringFlag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** A positive number (a whole one when `integer`), else the fallback. */
export function positiveFlag(name: string, fallback: number, integer = false): number {
  const value = Number(stringFlag(name) ?? Number.NaN);
  return (integer ? Number.isInteger(value) : Number.isFinite(value)) && value > 0 ? value : fallback;
}

/**
 * `--name a,b`: names from `allowed`, in the order given, or [] when the flag is absent. An unknown
 * name throws, naming the flag and the allowed ones, so a typo never quietly measures nothing.
 */
export function listFlag<T extends string>(name: string, allowed: readonly T[]): T[] {
  const value = stringFlag(name);
  if (value === undefined) return [];
  const names = value.split(",").filter((item) => item !== "");
  for (const item of names)
    if (!(allowed as readonly string[]).includes(item))
      throw new Error(`--${name}: unknown name ${JSON.stringify(item)}; the names are ${allowed.join(", ")}`);
  return names as T[];
}
