/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";

/**
 * A wide table that scrolls sideways on a phone, as TableWrap does, but reachable by keyboard: a
 * scrolling region must take focus (axe: scrollable-region-focusable), and a named region says
 * what scrolls.
 */
export function ScrollRegion(props: { label: string; children: Child }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabindex={0}>
      {props.children}
    </div>
  );
}
