/** @jsxImportSource hono/jsx */
/**
 * A repetition graded by its outcome (issue 22): where its end state differs from the expected one
 * (each path with the expected and the actual value), what the agent changed over the starting
 * state beside what the gold calls changed, and the required outputs its answers never stated.
 * Rendered inside the repetition's <details> on the run page.
 */
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import type { JsonValue } from "../../../core/json.js";
import type { StateChange } from "../../../core/scoring/end-state.js";
import { ScrollRegion } from "./scroll-region.js";

/** A value as one line of JSON; a side the state does not have reads "(absent)", one left out for its size says so. */
function stateValueText(value: JsonValue | undefined, tooLarge?: number): string {
  if (tooLarge !== undefined) return `(${tooLarge} bytes of JSON, too large to keep: see the attempt's state)`;
  return value === undefined ? "(absent)" : JSON.stringify(value);
}

export function EndStateSection(props: { record: RepetitionRecord }) {
  const { end_state: grade, outputs } = props.record;
  if (!grade && !outputs) return null;
  return (
    <>
      {grade ? (
        <>
          <h4>End state</h4>
          <p>{grade.reason}</p>
          {grade.mismatches.length > 0 ? (
            <ScrollRegion label="Where the end state differs">
              <table class="data">
                <caption>
                  {grade.mismatch_count > grade.mismatches.length
                    ? `Where the end state differs (the first ${grade.mismatches.length} of ${grade.mismatch_count} paths)`
                    : "Where the end state differs"}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Path</th>
                    <th scope="col">Expected</th>
                    <th scope="col">Actual</th>
                  </tr>
                </thead>
                <tbody>
                  {grade.mismatches.map((m) => (
                    <tr>
                      <td>
                        <code>{m.path || "/"}</code>
                      </td>
                      <td>
                        <code>{stateValueText(m.expected, m.too_large?.expected)}</code>
                      </td>
                      <td>
                        <code>{stateValueText(m.actual, m.too_large?.actual)}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          ) : null}
          <ChangeTable
            label="What the agent changed over the starting state"
            changes={grade.changes}
            total={grade.change_count}
          />
          {grade.expected_changes ? (
            <ChangeTable
              label={`What the gold calls changed (attempt ${grade.gold_attempt_id ?? "?"})`}
              changes={grade.expected_changes}
              total={grade.expected_changes.length}
            />
          ) : null}
        </>
      ) : null}
      {outputs ? (
        <>
          <h4>Required outputs</h4>
          {outputs.missing.length === 0 ? (
            <p>{outputs.reason}</p>
          ) : (
            <>
              <p>Never stated in the agent's answers:</p>
              <ul>
                {outputs.missing.map((fact) => (
                  <li>
                    <code>{fact}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      ) : null}
    </>
  );
}

function ChangeTable(props: { label: string; changes: StateChange[]; total: number }) {
  if (props.changes.length === 0) return <p>{`${props.label}: nothing.`}</p>;
  return (
    <ScrollRegion label={props.label}>
      <table class="data">
        <caption>
          {props.total > props.changes.length
            ? `${props.label} (the first ${props.changes.length} of ${props.total} paths)`
            : props.label}
        </caption>
        <thead>
          <tr>
            <th scope="col">Path</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {props.changes.map((change) => (
            <tr>
              <td>
                <code>{change.path || "/"}</code>
              </td>
              <td>
                <code>{stateValueText(change.before, change.too_large?.before)}</code>
              </td>
              <td>
                <code>{stateValueText(change.after, change.too_large?.after)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
