/** The two calls of json-logic-js (which ships no types) that the expression benchmark makes. */
declare module "json-logic-js" {
  const jsonLogic: {
    apply(rule: unknown, data?: unknown): unknown;
    add_operation(name: string, operation: (...args: never[]) => unknown): void;
  };
  export default jsonLogic;
}
