/** @jsxImportSource hono/jsx */
/**
 * A line diff of two JSON documents, pretty-printed with sorted keys so a reordered object is no
 * change. The diff itself is jsdiff's; each line is marked with + or − as well as colour.
 */
import { diffLines } from "diff";

interface DiffLine {
  kind: "added" | "removed" | "same";
  text: string;
}

/** Two-space JSON with object keys in order, so only real changes show. */
function prettyJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

export function jsonLineDiff(before: unknown, after: unknown): DiffLine[] {
  return diffLines(prettyJson(before), prettyJson(after)).flatMap((change) => {
    const kind = change.added ? "added" : change.removed ? "removed" : "same";
    const lines = change.value.endsWith("\n") ? change.value.slice(0, -1).split("\n") : change.value.split("\n");
    return lines.map((text) => ({ kind, text }));
  });
}

const MARK: Record<DiffLine["kind"], string> = { added: "+ ", removed: "− ", same: "  " };

/** Unchanged lines kept around each change; longer unchanged stretches fold into one line saying how many. */
const DIFF_CONTEXT = 3;

type ShownLine = DiffLine | { kind: "folded"; count: number };

/** The lines a reader needs: every change with DIFF_CONTEXT unchanged lines either side. */
export function foldUnchanged(lines: readonly DiffLine[], context = DIFF_CONTEXT): ShownLine[] {
  const near = lines.map(() => false);
  lines.forEach((line, i) => {
    if (line.kind === "same") return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) near[j] = true;
  });
  const shown: ShownLine[] = [];
  lines.forEach((line, i) => {
    if (near[i]) shown.push(line);
    else {
      const last = shown[shown.length - 1];
      if (last?.kind === "folded") last.count++;
      else shown.push({ kind: "folded", count: 1 });
    }
  });
  return shown;
}

export function DiffView(props: { lines: DiffLine[]; fromLabel: string; toLabel: string }) {
  const added = props.lines.filter((l) => l.kind === "added").length;
  const removed = props.lines.filter((l) => l.kind === "removed").length;
  return (
    <section aria-label={`Changes from ${props.fromLabel} to ${props.toLabel}`}>
      <p class="diff-summary">
        {added === 0 && removed === 0
          ? `No changes between ${props.fromLabel} and ${props.toLabel}.`
          : `${added} line${added === 1 ? "" : "s"} added, ${removed} line${removed === 1 ? "" : "s"} removed (from ${props.fromLabel} to ${props.toLabel}).`}
      </p>
      <p class="hint">Lines marked + were added, lines marked − were removed.</p>
      <div class="diff" tabindex={0} role="region" aria-label="Line diff">
        <pre>
          {foldUnchanged(props.lines).map((line) =>
            line.kind === "folded" ? (
              <span class="line folded">{`  … ${line.count} unchanged line${line.count === 1 ? "" : "s"}`}</span>
            ) : (
              <span class={`line ${line.kind}`}>{`${MARK[line.kind]}${line.text}`}</span>
            ),
          )}
        </pre>
      </div>
    </section>
  );
}
