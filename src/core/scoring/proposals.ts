/**
 * Approval requests checked against the input schema of the function they propose, when the
 * repetition is scored. A proposal is not executed, so the attempt never validates it; without this
 * check, a proposal the tool would refuse once approved (a `reason` outside its enum) read as the
 * right call. The problems are kept on the request, so the record, the reports and selection
 * (selection.ts, `invalid_proposals`) all show the same ones.
 */
import { isJsonObject, type Problem } from "../json.js";
import type { ChatTool, SchemaValidator } from "../ports.js";
import type { ApprovalRequest } from "./calls.js";

/**
 * Each request with `problems` set when its arguments break its function's input schema. A
 * function the agent was not given has no schema to check against: selection reports it as an
 * unknown function instead.
 */
export function checkedProposals(
  requests: readonly ApprovalRequest[],
  tools: readonly ChatTool[],
  validator: SchemaValidator,
): ApprovalRequest[] {
  const schemas = new Map(tools.map((tool) => [tool.name, tool.parameters]));
  return requests.map((request) => {
    const { problems: _stale, ...proposal } = request;
    const schema = schemas.get(proposal.function);
    if (schema === undefined) return proposal;
    const problems = argumentProblemsOf(proposal.arguments, schema, validator);
    return problems.length > 0 ? { ...proposal, problems } : proposal;
  });
}

function argumentProblemsOf(
  args: ApprovalRequest["arguments"],
  schema: ChatTool["parameters"],
  validator: SchemaValidator,
): Problem[] {
  // The runner keeps the model's text when it was not a usable JSON object (agent-loop.ts).
  if (typeof args === "string")
    return [
      {
        path: "",
        message: "expected a JSON object of arguments; the model sent text that is not one (kept as it came)",
      },
    ];
  if (!isJsonObject(args))
    return [
      {
        path: "",
        message: `expected a JSON object of arguments; got ${args === null ? "null" : Array.isArray(args) ? "an array" : `a ${typeof args}`}`,
      },
    ];
  return validator.validate(schema, args);
}
