/** JSON documents are stored as text; parse them at the repository boundary, once. */
import type { JsonObject, JsonValue } from "../../core/json.js";
import { isJsonObject } from "../../core/json.js";

export function parseJsonColumn(text: string): JsonValue {
  // SAFETY: every JSON column is written by this code from JSON.stringify of a JsonValue.
  return JSON.parse(text) as JsonValue;
}

export function parseJsonObjectColumn(text: string | null): JsonObject | undefined {
  if (text === null) return undefined;
  const value = parseJsonColumn(text);
  return isJsonObject(value) ? value : undefined;
}

/** Opaque pagination cursors: base64url of a small JSON array, so clients never parse them. */
export function encodeCursor(parts: Array<string | number>): string {
  return btoa(JSON.stringify(parts)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeCursor(cursor: string): Array<string | number> | undefined {
  try {
    const padded = cursor.replace(/-/g, "+").replace(/_/g, "/");
    const parts: unknown = JSON.parse(atob(padded + "=".repeat((4 - (padded.length % 4)) % 4)));
    if (Array.isArray(parts) && parts.every((p) => typeof p === "string" || typeof p === "number")) return parts;
  } catch {
    // fall through: an unreadable cursor is the caller's mistake, reported by the route
  }
  return undefined;
}
