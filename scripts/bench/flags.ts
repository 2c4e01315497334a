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
