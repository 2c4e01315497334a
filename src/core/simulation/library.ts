/**
 * What simulation planning reads from one tenant's tool library, as a port: the worker answers it
 * from D1 (src/adapters/d1/simulations.ts), tests from plain maps. Every method sees one tenant
 * only, so another tenant's tool is simply absent, exactly like a tool that does not exist.
 */
import type { JsonValue } from "../json.js";
import type { JsonSchema } from "../ports.js";
import type { OperationSpec } from "../tools/types.js";

/** One operation of a library tool as it is now, with the hash of its current contract. */
export interface LibraryOperation extends OperationSpec {
  contract_hash: string;
}

/** A library tool as planning needs it (the stored tool carries more; this is the part read). */
export interface LibraryTool {
  id: string;
  name: string;
  /** Fallback for operations without an output schema of their own. */
  output_schema?: JsonSchema | undefined;
  operations: LibraryOperation[];
}

/** The revision a new simulation may pin: the newest one checked against the operation's current contract. */
export interface PinnableRevision {
  tool_id: string;
  operation_id: string;
  revision: number;
  contract_hash: string;
  /** The saved definition, as stored (planning parses it again: an unreadable one is refused, never pinned). */
  definition: JsonValue;
}

/** The newest revision of an operation whatever its hash, to say why nothing was pinnable. */
export interface NewestRevision {
  tool_id: string;
  operation_id: string;
  revision: number;
  contract_hash: string;
}

export interface PinCandidates {
  /** Keyed by operationKey(tool_id, operation_id). */
  pinnable: ReadonlyMap<string, PinnableRevision>;
  newest: ReadonlyMap<string, NewestRevision>;
}

export function operationKey(toolId: string, operationId: string): string {
  return `${toolId}\u0000${operationId}`;
}

export interface ToolLibrary {
  /** The tenant's tools with these ids; an id of no tool of the tenant is absent from the map. */
  toolsById(ids: readonly string[]): Promise<ReadonlyMap<string, LibraryTool>>;
  /**
   * The ids of the tenant's tools with these exact names, keyed by name. Read only when a tool_id
   * was not found, to tell a client who gave a tool's name where its id belongs.
   */
  toolIdsByName(names: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /**
   * For every operation of these tools: the newest revision whose contract hash equals the
   * operation's current hash (the only kind a simulation pins), and the newest of any hash.
   */
  pinCandidates(toolIds: readonly string[]): Promise<PinCandidates>;
}
