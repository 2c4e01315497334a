/** Reading fields of values that arrive as `unknown` (parsed JSON, wrangler's untyped config) without casts. */

export function field(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
  const found: unknown = Reflect.get(value, key);
  return found;
}

export function stringField(value: unknown, key: string): string | undefined {
  const found = field(value, key);
  return typeof found === "string" ? found : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
