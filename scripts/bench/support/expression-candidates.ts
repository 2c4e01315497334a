/**
 * The four expression languages weighed for the v2 mock definition, each asked the same three
 * retail computations over the same data. Shared by scripts/bench/expressions.ts, which runs it in
 * Node and bundles it into a throwaway Worker to run it in workerd (where code generation from
 * strings is forbidden, so a library that used eval or new Function would fail there).
 *
 * Each candidate is written the way its own documentation suggests, with the smallest custom
 * additions it needs to answer at all (named in `additions`), so the comparison is of the
 * languages as a definition author would meet them.
 */
import {
  celEnv,
  celFunc,
  CelScalar,
  isCelList,
  isCelMap,
  listType,
  parse as bufParse,
  plan as bufPlan,
  type CelList,
} from "@bufbuild/cel";
import { strings as bufStrings } from "@bufbuild/cel/ext";
import { Environment } from "@marcbachmann/cel-js";
// SAFETY: json-logic-js ships no types; scripts/bench/support/json-logic-js.d.ts declares the two calls used.
import jsonLogic from "json-logic-js";
import jsonata from "jsonata";
import { messageOf } from "../../../src/core/message-of.js";

export type Computation = "find_user_by_email" | "sum_item_prices" | "filter_items_by_ids";
export const COMPUTATIONS: readonly Computation[] = ["find_user_by_email", "sum_item_prices", "filter_items_by_ids"];

export interface RetailContext {
  state: {
    users: Record<string, { email: string; name: { first_name: string; last_name: string } }>;
    orders: Record<string, { items: Array<{ item_id: string; price: number }> }>;
  };
  input: { email: string; order_id: string; item_ids: string[] };
}

/** Retail-shaped data of τ-bench's size (500 users, 1,000 orders of 1–5 items), made up, deterministic. */
export function retailContext(): RetailContext {
  const users: RetailContext["state"]["users"] = {};
  for (let u = 0; u < 500; u++) {
    users[`user_${u}`] = { email: `Person.${u}@example.com`, name: { first_name: `First${u}`, last_name: `Last${u}` } };
  }
  const orders: RetailContext["state"]["orders"] = {};
  for (let o = 0; o < 1000; o++) {
    const items = [];
    for (let i = 0; i < 1 + (o % 5); i++)
      items.push({ item_id: `${1000000 + o * 7 + i}`, price: 10 + ((o * 37 + i * 13) % 9000) / 100 });
    orders[`#W${o}`] = { items };
  }
  // The user searched for is the last one, so every candidate walks all 500.
  return {
    state: { users, orders },
    input: { email: "person.499@EXAMPLE.com", order_id: "#W999", item_ids: ["1006993", "1006997"] },
  };
}

/** What every candidate must answer on retailContext(), computed in plain TypeScript. */
export function expectedAnswers(context: RetailContext): Record<Computation, unknown> {
  const items = context.state.orders[context.input.order_id]?.items ?? [];
  let sum = 0;
  for (const item of items) sum += item.price;
  return {
    find_user_by_email: "user_499",
    sum_item_prices: Math.round(sum * 100) / 100,
    filter_items_by_ids: items.filter((item) => context.input.item_ids.includes(item.item_id)),
  };
}

export interface Candidate {
  readonly name: string;
  readonly version: string;
  /** The module a bundle of this candidate imports (for the size measurement). */
  readonly module: string;
  /** What the candidate needed beyond its built-ins to answer the three computations. */
  readonly additions: string;
  readonly expressions: Record<Computation, string>;
  /** An expression reading a key that is not there, and one with a syntax error: what does the author see? */
  readonly probes: { readonly missing_key: string; readonly syntax_error: string };
  /** What the library offers to bound evaluation, from its documentation and source. */
  readonly bounding: string;
  /** Compiles one expression; the function evaluates it (a Promise for asynchronous libraries). */
  compile(source: string): (context: RetailContext) => unknown;
}

const celJs = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false })
  .registerFunction("sum(list): double", (list: unknown[]) =>
    list.reduce<number>((total, value) => total + Number(value), 0),
  )
  .registerFunction("round2(double): double", (value: number) => Math.round(value * 100) / 100);

const bufFuncs = [
  ...bufStrings,
  celFunc("sum", [listType(CelScalar.DYN)], CelScalar.DOUBLE, (list: CelList) => {
    let total = 0;
    for (const value of list) total += Number(value);
    return total;
  }),
  celFunc("round2", [CelScalar.DOUBLE], CelScalar.DOUBLE, (value: number) => Math.round(value * 100) / 100),
];

const bufEnv = celEnv({ funcs: bufFuncs });

jsonLogic.add_operation("values", (object: Record<string, unknown>) =>
  Object.keys(object).map((key) => ({ key, value: object[key] })),
);
jsonLogic.add_operation("lower", (text: string) => String(text).toLowerCase());
jsonLogic.add_operation("round2", (value: number) => Math.round(value * 100) / 100);
jsonLogic.add_operation("at", (object: Record<string, unknown>, key: string) =>
  object === null || typeof object !== "object" ? null : object[key],
);

/** @bufbuild/cel answers CelList / CelMap views and bigint ints: a definition engine must convert them back to JSON. */
function fromBufCel(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (isCelList(value)) return [...value].map(fromBufCel);
  if (isCelMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of value) out[String(key)] = fromBufCel(item);
    return out;
  }
  if (value instanceof Error) throw value;
  return value;
}

export const CANDIDATES: readonly Candidate[] = [
  {
    name: "@marcbachmann/cel-js",
    probes: {
      missing_key: 'state.orders["#nope"].items',
      syntax_error: "state.orders[input.order_id].items.filter(i, i.price >)",
    },
    bounding:
      "non-Turing-complete (no recursion, loops only over finite collections); parse-time limits on AST nodes, depth, literal sizes; no run-time step counter",
    version: "8.0.0",
    module: "@marcbachmann/cel-js",
    additions: "functions sum, round2",
    expressions: {
      find_user_by_email: "state.users.filter(k, state.users[k].email.lowerAscii() == input.email.lowerAscii())[0]",
      sum_item_prices: "round2(sum(state.orders[input.order_id].items.map(i, i.price)))",
      filter_items_by_ids: "state.orders[input.order_id].items.filter(i, i.item_id in input.item_ids)",
    },
    compile(source) {
      const program = celJs.parse(source);
      return (context) => program(context as unknown as Record<string, unknown>);
    },
  },
  {
    name: "@bufbuild/cel",
    probes: {
      missing_key: 'state.orders["#nope"].items',
      syntax_error: "state.orders[input.order_id].items.filter(i, i.price >)",
    },
    bounding: "non-Turing-complete; no run-time step counter or cost limit in the JS implementation",
    version: "0.6.1",
    module: "@bufbuild/cel",
    additions: "functions sum, round2 (celFunc), strings extension",
    expressions: {
      find_user_by_email: "state.users.filter(k, state.users[k].email.lowerAscii() == input.email.lowerAscii())[0]",
      sum_item_prices: "round2(sum(state.orders[input.order_id].items.map(i, i.price)))",
      filter_items_by_ids: "state.orders[input.order_id].items.filter(i, i.item_id in input.item_ids)",
    },
    compile(source) {
      const program = bufPlan(bufEnv, bufParse(source));
      // SAFETY: plain JSON objects are accepted as CEL input (the library reads them as maps).
      return (context) => fromBufCel(program(context as never));
    },
  },
  {
    name: "json-logic-js",
    probes: {
      missing_key: '{"var":"state.orders.#nope.items"}',
      syntax_error: '{"filterr":[{"var":"state.users"},true]}',
    },
    bounding: "no recursion (bounded by data size); no step counter or limit",
    version: "2.0.5",
    module: "json-logic-js",
    additions:
      "operations values (walk a keyed collection), lower, round2, at (index by a computed key); the search values written into the rule",
    expressions: {
      // Inside map/filter a JSON Logic rule sees only the element, never the outer data, so the
      // searched email and item ids have to be written into the rule (a real limit for definitions).
      find_user_by_email: JSON.stringify({
        map: [
          {
            filter: [
              { values: { var: "state.users" } },
              { "==": [{ lower: { var: "value.email" } }, "person.499@example.com"] },
            ],
          },
          { var: "key" },
        ],
      }),
      sum_item_prices: JSON.stringify({
        round2: {
          reduce: [
            { at: [{ at: [{ var: "state.orders" }, { var: "input.order_id" }] }, "items"] },
            { "+": [{ var: "accumulator" }, { var: "current.price" }] },
            0,
          ],
        },
      }),
      filter_items_by_ids: JSON.stringify({
        filter: [
          { at: [{ at: [{ var: "state.orders" }, { var: "input.order_id" }] }, "items"] },
          { in: [{ var: "item_id" }, ["1006993", "1006997"]] },
        ],
      }),
    },
    compile(source) {
      const rule: unknown = JSON.parse(source);
      return (context) => jsonLogic.apply(rule, context);
    },
  },
  {
    name: "jsonata",
    probes: { missing_key: '$lookup(state.orders, "#nope").items', syntax_error: "state.orders[" },
    bounding: "Turing-complete (recursive functions); no step counter, only a time box through evaluation hooks",
    version: "2.2.2",
    module: "jsonata",
    additions: "none",
    expressions: {
      find_user_by_email:
        "$keys(state.users)[$lowercase($lookup($$.state.users, $).email) = $lowercase($$.input.email)][0]",
      sum_item_prices: "$round($sum($lookup(state.orders, input.order_id).items.price), 2)",
      filter_items_by_ids: "[$lookup(state.orders, input.order_id).items[item_id in $$.input.item_ids]]",
    },
    compile(source) {
      const expression = jsonata(source);
      return (context) => expression.evaluate(context);
    },
  },
];

/** Runs every candidate's three computations `iterations` times; answers per-candidate results and failures. */
/** The first line of what each candidate says about the two probes (or the value it answered instead). */
export async function probeCandidates(): Promise<Array<{ name: string; missing_key: string; syntax_error: string }>> {
  const context = retailContext();
  const say = async (candidate: Candidate, source: string): Promise<string> => {
    try {
      const value = await candidate.compile(source)(context);
      return `no error; answers ${JSON.stringify(value) ?? "undefined"}`;
    } catch (caught) {
      // JSONata throws plain objects with a message and a position rather than Errors.
      const message =
        caught !== null && typeof caught === "object" && "message" in caught ? String(caught.message) : String(caught);
      const position =
        caught !== null && typeof caught === "object" && "position" in caught ? ` (at ${String(caught.position)})` : "";
      return `error: ${message.split("\n")[0]}${position}`;
    }
  };
  const out = [];
  for (const candidate of CANDIDATES) {
    out.push({
      name: candidate.name,
      missing_key: await say(candidate, candidate.probes.missing_key),
      syntax_error: await say(candidate, candidate.probes.syntax_error),
    });
  }
  return out;
}

export async function runCandidates(
  iterations: number,
): Promise<Array<{ name: string; answers: Record<string, unknown>; error: string | null }>> {
  const context = retailContext();
  const out = [];
  for (const candidate of CANDIDATES) {
    const answers: Record<string, unknown> = {};
    let error: string | null = null;
    try {
      for (const computation of COMPUTATIONS) {
        const evaluate = candidate.compile(candidate.expressions[computation]);
        let value: unknown;
        for (let i = 0; i < iterations; i++) value = await evaluate(context);
        answers[computation] = value;
      }
    } catch (caught) {
      error = messageOf(caught);
    }
    out.push({ name: candidate.name, answers, error });
  }
  return out;
}

/** Evaluates one candidate's computation `iterations` times (compiled once); answers the last value. */
export async function repeatComputation(
  name: string,
  computation: Computation,
  iterations: number,
  context: RetailContext,
): Promise<unknown> {
  const candidate = CANDIDATES.find((c) => c.name === name);
  if (candidate === undefined) throw new Error(`no candidate named ${name}`);
  const evaluate = candidate.compile(candidate.expressions[computation]);
  let value: unknown;
  for (let i = 0; i < iterations; i++) value = await evaluate(context);
  return value;
}

/** Candidates answer a one-element list or the element itself for a search; both mean the same. */
export function sameAnswer(expected: unknown, actual: unknown): boolean {
  const unwrap = (value: unknown): unknown =>
    Array.isArray(value) && value.length === 1 && typeof value[0] === "string" ? value[0] : value;
  return JSON.stringify(unwrap(expected)) === JSON.stringify(unwrap(actual));
}
