/** @jsxImportSource hono/jsx */
/**
 * Small pure view pieces every page may use. A badge always says its meaning in words (colour
 * only repeats it), so it reads the same to a screen reader and in greyscale.
 */
import type { Child } from "hono/jsx";
import { CSRF_FIELD } from "./session.js";

export type BadgeTone = "pass" | "fail" | "warn" | "info" | "neutral";

export function Badge(props: { tone: BadgeTone; children: Child; title?: string }) {
  return (
    <span class={`badge badge-${props.tone}`} title={props.title}>
      {props.children}
    </span>
  );
}

/** Whether a mock revision was checked against the operation's current contract. */
export function StaleBadge(props: { stale: boolean | null }) {
  if (props.stale === null) return <Badge tone="neutral">No revision</Badge>;
  return props.stale ? (
    <Badge
      tone="fail"
      title="The contract changed since this revision was saved: check the mock again and save a new revision"
    >
      Stale
    </Badge>
  ) : (
    <Badge tone="pass">Current</Badge>
  );
}

/** The hidden CSRF field every dashboard form must carry (see session.ts). */
export function CsrfField(props: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />;
}

/** A table that scrolls sideways on a narrow screen instead of breaking the page. */
export function TableWrap(props: { children: Child }) {
  return <div class="table-wrap">{props.children}</div>;
}

/** A short form of a long hash, whole in its title. */
export function ShortHash(props: { hash: string }) {
  return (
    <code class="mono" title={props.hash}>
      {props.hash.slice(0, 12)}
    </code>
  );
}

export function Notice(props: { kind?: "info" | "error"; children: Child }) {
  return (
    <div
      class={props.kind === "error" ? "notice notice-error" : "notice"}
      role={props.kind === "error" ? "alert" : undefined}
    >
      {props.children}
    </div>
  );
}

/** A JSON document as people read it: two-space indentation. */
export function JsonBlock(props: { value: unknown; label: string }) {
  return (
    <pre class="json" tabindex={0} aria-label={props.label}>
      {JSON.stringify(props.value, null, 2)}
    </pre>
  );
}

/** A GET form choosing two numbered versions to compare (older first by default). */
export function CompareForm(props: { action: string; idPrefix: string; numbers: number[]; noun: string }) {
  const [newest, previous] = props.numbers;
  const option = (n: number, selected: boolean) => (
    <option value={String(n)} selected={selected}>
      {`${props.noun} ${n}`}
    </option>
  );
  return (
    <form class="inline" method="get" action={props.action}>
      <div>
        <label for={`${props.idPrefix}-from`}>Compare</label>
        <select id={`${props.idPrefix}-from`} name="from">
          {props.numbers.map((n) => option(n, n === previous))}
        </select>
      </div>
      <div>
        <label for={`${props.idPrefix}-to`}>with</label>
        <select id={`${props.idPrefix}-to`} name="to">
          {props.numbers.map((n) => option(n, n === newest))}
        </select>
      </div>
      <div>
        <button class="primary" type="submit">
          Show the diff
        </button>
      </div>
    </form>
  );
}
