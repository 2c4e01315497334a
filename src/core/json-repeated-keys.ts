/**
 * The first object key written twice in a JSON text. JSON.parse keeps the last of repeated keys
 * without a word (RFC 8259 leaves the meaning open), so a reader that must not guess, such as the
 * judge parser, looks at the text itself. Keys compare after unescaping: "score" and "\u0073core"
 * are the same key.
 */
import { pointer } from "./json.js";
import { walkJsonText } from "./json-text-walk.js";

interface RepeatedKey {
  key: string;
  /** JSON Pointer to the object holding it ("" for the top level). */
  at: string;
}

/** Scans a text JSON.parse has already accepted. Answers null when every object's keys differ. */
export function firstRepeatedKey(validJson: string): RepeatedKey | null {
  let found: RepeatedKey | null = null;
  walkJsonText(validJson, {
    key(key, repeated, holder) {
      if (repeated) found = { key, at: pointer(...holder()) };
      return repeated;
    },
  });
  return found;
}
