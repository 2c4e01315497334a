/**
 * "Did you mean": the known field a client most plausibly meant by one it sent. Shared by every
 * reader that refuses unknown fields (policy documents, manifests, the HTTP API's bodies), so a
 * near miss gets the same help wherever it is made.
 */

/**
 * Other APIs' names for toolproof's fields, tried when the known set at that place has the target:
 * an OpenAI function's `parameters` and an MCP tool's `name` are an operation's `input_schema`
 * and `operation_id`, and a tool's operations are not called `tools`.
 */
const FOREIGN_NAMES: ReadonlyMap<string, string> = new Map([
  ["parameters", "input_schema"],
  ["name", "operation_id"],
  ["tools", "operations"],
]);

/** The message for an unknown field: a suggestion when one is plausible, else the fields that exist. */
export function unknownFieldMessage(key: string, known: readonly string[]): string {
  const suggestion = suggestField(key, known);
  if (suggestion !== undefined) return `unknown field "${key}"; did you mean "${suggestion}"?`;
  return known.length > 0 ? `unknown field "${key}"; expected one of: ${known.join(", ")}` : `unknown field "${key}"`;
}

/** Another API's spelling, the same name in camelCase (`inputSchema`), or a typo or abbreviation. */
export function suggestField(key: string, known: readonly string[]): string | undefined {
  const foreign = FOREIGN_NAMES.get(key);
  if (foreign !== undefined && known.includes(foreign)) return foreign;
  const snake = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  if (snake !== key && known.includes(snake)) return snake;
  return closestName(key, known);
}

/**
 * The known word `word` plausibly stands for: a typo (edit distance ≤ 2), or else an abbreviation
 * sharing a prefix of at least five characters ("min_desc_length" → "min_description_length").
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== undefined) return best;
  let longest = 4;
  for (const candidate of known) {
    const shared = commonPrefixLength(lower, candidate.toLowerCase());
    if (shared > longest) {
      best = candidate;
      longest = shared;
    }
  }
  return best;
}

function commonPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Levenshtein distance, cut off at 3: only "close enough" matters. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
