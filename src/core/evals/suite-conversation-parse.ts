/**
 * The conversation fields of a suite document, read beside suite-parse.ts: the suite's
 * `user_model` and a scenario's `user` (which replaces its `query`). Problems are reported at each
 * field's JSON Pointer in the same words as the rest of the suite.
 *
 * - A scenario has `query` or `user`, never both: a conversation's first message is the user
 *   model's, and a query beside it would be a second opening nobody sends.
 * - A suite with any `user` scenario needs `user_model`, whichever agent it runs: an external
 *   agent converses through its attempt's turns (docs/external-agents.md, "Conversations").
 */
import { RESOURCE_NAME, RESOURCE_NAME_RULE } from "../names.js";
import {
  at,
  describeValue,
  isRecord,
  type ProblemList,
  readObject,
  readString,
  refuseUnknownKeys,
} from "../policy/fields.js";
import { DEFAULT_USER_MAX_TURNS, MAX_USER_INSTRUCTION_LENGTH, MAX_USER_TURNS_LIMIT } from "./conversation-types.js";
import type { ModelParameters, Scenario, ScenarioUser, UserModelSpec } from "./suite-types.js";

const USER_MODEL_FIELDS = ["connection", "parameters", "max_turns"] as const;
const USER_FIELDS = ["instruction", "max_turns"] as const;

/** suite-parse.ts's model parameters reader, passed in so this module does not import the one that imports it. */
type ParametersReader = (value: unknown, path: string, problems: ProblemList) => ModelParameters | undefined;

/** The suite's `user_model`. */
export function readUserModel(
  value: unknown,
  problems: ProblemList,
  readParameters: ParametersReader,
): UserModelSpec | undefined {
  const path = "/user_model";
  const spec = readObject(value, path, problems, 'the user model ({"connection": "<name>", "max_turns": 10})');
  if (!spec) return undefined;
  refuseUnknownKeys(spec, USER_MODEL_FIELDS, path, problems);
  let connection: string | undefined;
  if (spec.connection === undefined)
    problems.add(
      at(path, "connection"),
      "required: the model connection the user model runs on (PUT /api/connections/:name)",
    );
  else if (typeof spec.connection === "string" && RESOURCE_NAME.test(spec.connection)) connection = spec.connection;
  else problems.add(at(path, "connection"), `${RESOURCE_NAME_RULE}, got ${describeValue(spec.connection)}`);
  const parameters =
    spec.parameters === undefined ? {} : readParameters(spec.parameters, at(path, "parameters"), problems);
  const maxTurns =
    spec.max_turns === undefined
      ? DEFAULT_USER_MAX_TURNS
      : readMaxTurns(spec.max_turns, at(path, "max_turns"), problems);
  if (connection === undefined || parameters === undefined || maxTurns === undefined) return undefined;
  return { connection, parameters, max_turns: maxTurns };
}

/**
 * A scenario's opening: its `query`, or its `user` (exclusive). `readQuery` is suite-parse.ts's own
 * reader of `query`. Undefined when neither is usable (the problem is reported).
 */
export function readScenarioOpening(
  scenario: Record<string, unknown>,
  path: string,
  problems: ProblemList,
  readQuery: (value: unknown) => string | undefined,
): Pick<Scenario, "query" | "user"> | undefined {
  if (scenario.user === undefined) {
    if (scenario.query === undefined) {
      problems.add(at(path, "query"), "required: the user's message (or `user`, for a conversation with a user model)");
      return undefined;
    }
    const query = readQuery(scenario.query);
    return query === undefined ? undefined : { query };
  }
  if (scenario.query !== undefined) {
    problems.add(
      at(path, "user"),
      "a scenario has `query` (one message) or `user` (a conversation the user model plays), not both: remove one",
    );
    return undefined;
  }
  const user = readScenarioUser(scenario.user, at(path, "user"), problems);
  return user === undefined ? undefined : { user };
}

function readScenarioUser(value: unknown, path: string, problems: ProblemList): ScenarioUser | undefined {
  const user = readObject(value, path, problems, 'the simulated user ({"instruction": "You are ..."})');
  if (!user) return undefined;
  refuseUnknownKeys(user, USER_FIELDS, path, problems);
  const instruction =
    user.instruction === undefined
      ? void problems.add(
          at(path, "instruction"),
          "required: who the user is and what they want (the user model's instruction)",
        )
      : readString(user.instruction, at(path, "instruction"), problems, {
          nonEmpty: true,
          maxLength: MAX_USER_INSTRUCTION_LENGTH,
        });
  const maxTurns = user.max_turns === undefined ? null : readMaxTurns(user.max_turns, at(path, "max_turns"), problems);
  if (instruction === undefined || maxTurns === undefined) return undefined;
  return { instruction, ...(maxTurns === null ? {} : { max_turns: maxTurns }) };
}

/**
 * What the whole document must agree on: conversation scenarios need `user_model`. Read from the
 * document as sent, so the problem is found even when a scenario has others.
 */
export function conversationProblems(root: Record<string, unknown>, problems: ProblemList): void {
  const scenarios = Array.isArray(root.scenarios) ? root.scenarios : [];
  const conversations = scenarios.flatMap((item, index) =>
    isRecord(item) && item.user !== undefined
      ? [{ id: typeof item.id === "string" ? `"${item.id}"` : `#${index}` }]
      : [],
  );
  if (conversations.length === 0) return;
  if (root.user_model === undefined)
    problems.add(
      "/user_model",
      `required: scenarios ${conversations.map(({ id }) => id).join(", ")} are conversations, and a user model plays their user ({"connection": "<name>"})`,
    );
}

function readMaxTurns(value: unknown, path: string, problems: ProblemList): number | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_USER_TURNS_LIMIT) return value;
  problems.add(
    path,
    `expected a whole number from 1 to ${MAX_USER_TURNS_LIMIT} (user messages), got ${describeValue(value)}`,
  );
  return undefined;
}
