/**
 * The contract hash: what a revision was checked against. WebCrypto (crypto.subtle) rather than
 * node:crypto so the same code runs in Node 22 and in workerd.
 */
import { canonicalJson } from "../json.js";
import type { OperationContract } from "./types.js";

/** The exact string that is hashed: canonical JSON of the five fields that make the contract. */
export function contractCanonicalJson(contract: OperationContract): string {
  return canonicalJson({
    tool: contract.tool,
    operation: contract.operation,
    description: contract.description,
    input_schema: contract.input_schema,
    output_schema: contract.output_schema,
  });
}

/**
 * Lowercase hex SHA-256 of the contract's canonical JSON (UTF-8). Any change to the tool id,
 * operation id, description or either schema changes it; key order does not.
 */
export async function contractHash(contract: OperationContract): Promise<string> {
  const bytes = new TextEncoder().encode(contractCanonicalJson(contract));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
