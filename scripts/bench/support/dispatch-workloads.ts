/**
 * toolproof's two dispatch workloads for the benchmark, and the check that every answered call is
 * in the evidence:
 *   lookup  a validated lookup: input schema validation, a rule match, rendering from $input,
 *           output schema validation, evidence recorded; no set_state;
 *   write   a stateful write: the first call of each attempt books a slot (set_state), every later
 *           call of that attempt answers a conflict read from state.
 * Each goes round-robin over its own attempts (one Durable Object per attempt).
 */
import { field } from "../../local/narrow.js";
import type { WrkRequest } from "../wrk.js";

export interface Toolproof {
  url: string;
  key: string;
}

export interface Attempt {
  id: string;
  token: string;
}

export type WorkloadName = "lookup" | "write";

export interface Workload<Name extends string = WorkloadName> {
  name: Name;
  attempts: Attempt[];
  requests: WrkRequest[];
  check: EvidenceCheck;
}

const ATTEMPTS_PER_SIMULATION = 100;

async function api(t: Toolproof, method: string, route: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = {
    method,
    headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${t.url}${route}`, init);
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

const run = Date.now().toString(36);

const lookupTool = {
  name: `bench_patients_${run}`,
  description: "Look up one patient by id.",
  kind: "http",
  operations: [
    {
      operation_id: "get_patient",
      description: "Return the patient's name and status.",
      input_schema: {
        type: "object",
        properties: {
          patient_id: { type: "string", pattern: "^P-[0-9]{4}$" },
          include: { type: "string", enum: ["status", "all"] },
        },
        required: ["patient_id"],
        additionalProperties: false,
      },
      output_schema: {
        type: "object",
        properties: {
          patient_id: { type: "string" },
          name: { type: "string" },
          status: { type: "string", enum: ["active", "discharged"] },
        },
        required: ["patient_id", "name", "status"],
        additionalProperties: false,
      },
    },
  ],
};
const lookupDefinition = {
  schema_version: 1,
  default_variant: "found",
  variants: {
    found: {
      result: { patient_id: { $input: "patient_id" }, name: "Ada Lovelace", status: "active" },
      rules: [
        {
          when: [{ source: "input", path: "patient_id", op: "eq", value: "P-0001" }],
          result: { patient_id: "P-0001", name: "Grace Hopper", status: "discharged" },
        },
        {
          when: [{ source: "input", path: "patient_id", op: "in", value: ["P-0002", "P-0003"] }],
          result: { patient_id: { $input: "patient_id" }, name: "Alan Turing", status: "active" },
        },
      ],
    },
  },
  examples: [
    {
      variant: "found",
      input: { patient_id: "P-0042" },
      expected: { patient_id: "P-0042", name: "Ada Lovelace", status: "active" },
    },
    {
      variant: "found",
      input: { patient_id: "P-0001" },
      expected: { patient_id: "P-0001", name: "Grace Hopper", status: "discharged" },
    },
  ],
};

const writeTool = {
  name: `bench_booking_${run}`,
  description: "Book an appointment slot.",
  kind: "http",
  operations: [
    {
      operation_id: "book_slot",
      description: "Book the slot; answers a conflict when this attempt has booked one already.",
      input_schema: {
        type: "object",
        properties: {
          slot: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$" },
          patient_id: { type: "string" },
        },
        required: ["slot", "patient_id"],
        additionalProperties: false,
      },
      output_schema: {
        type: "object",
        properties: {
          status: { type: "string", enum: ["booked", "conflict"] },
          slot: { type: "string" },
          reference: { type: "string" },
        },
        required: ["status", "slot"],
        additionalProperties: false,
      },
    },
  ],
};
const writeDefinition = {
  schema_version: 1,
  default_variant: "open",
  variants: {
    open: {
      result: { status: "booked", slot: { $input: "slot" }, reference: "BK-1" },
      set_state: { booked: { $input: "slot" }, patient: { $input: "patient_id" } },
      rules: [
        {
          when: [{ source: "state", path: "booked", op: "exists", value: true }],
          result: { status: "conflict", slot: { $state: "booked" } },
          set_state: {},
        },
      ],
    },
  },
  examples: [
    {
      variant: "open",
      input: { slot: "2026-03-02T09:00", patient_id: "P-1" },
      expected: { status: "booked", slot: "2026-03-02T09:00", reference: "BK-1" },
    },
    {
      variant: "open",
      input: { slot: "2026-03-02T10:00", patient_id: "P-1" },
      state: { booked: "2026-03-02T09:00" },
      expected: { status: "conflict", slot: "2026-03-02T09:00" },
    },
  ],
};

async function registerWithRevision(
  t: Toolproof,
  tool: { name: string; operations: Array<{ operation_id: string }> },
  definition: unknown,
): Promise<string> {
  const created = await api(t, "POST", "/api/tools", tool);
  const id = String(field(created, "id"));
  const operations = field(created, "operations");
  const hash = Array.isArray(operations) ? field(operations[0], "contract_hash") : undefined;
  await api(t, "POST", `/api/tools/${id}/testing`, {
    action: "save",
    operation_id: tool.operations[0]?.operation_id,
    contract_hash: hash,
    definition,
  });
  return id;
}

async function attemptsFor(t: Toolproof, toolId: string, count: number): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (let made = 0; made < count; made += ATTEMPTS_PER_SIMULATION) {
    const simulation = await api(t, "POST", "/api/simulations", {
      tools: [{ tool_id: toolId }],
      attempts: Math.min(ATTEMPTS_PER_SIMULATION, count - made),
      lease_seconds: 3600,
    });
    const list = field(simulation, "attempts");
    if (!Array.isArray(list)) throw new Error("simulation answer without attempts");
    for (const attempt of list)
      attempts.push({ id: String(field(attempt, "id")), token: String(field(attempt, "token")) });
  }
  return attempts;
}

function dispatches(t: Toolproof, attempts: readonly Attempt[], tool: string, args: unknown): WrkRequest[] {
  const body = { tool, arguments: args };
  return dispatchEach(t, attempts, () => body);
}

/** One dispatch request per attempt, in the attempts' order, each with its own body (`{tool, operation_id?, arguments}`). */
export function dispatchEach(
  t: Toolproof,
  attempts: readonly Attempt[],
  body: (attempt: Attempt, index: number) => unknown,
): WrkRequest[] {
  const host = new URL(t.url).host;
  return attempts.map((attempt, index) => ({
    method: "POST",
    path: `/api/attempts/${attempt.id}/dispatch`,
    headers: { Host: host, Authorization: `Bearer ${attempt.token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body(attempt, index)),
  }));
}

/** The lookup workload's tool alone, registered with its revision: its id and one call's request (the memory benchmark's small tool). */
export async function registerLookupTool(
  t: Toolproof,
): Promise<{ toolId: string; dispatch: (attempts: readonly Attempt[]) => WrkRequest[] }> {
  const toolId = await registerWithRevision(t, lookupTool, lookupDefinition);
  return {
    toolId,
    dispatch: (attempts) => dispatches(t, attempts, lookupTool.name, { patient_id: "P-0042", include: "status" }),
  };
}

/** Sets up `count` attempts of a registered tool, 100 per simulation. */
export function setUpAttempts(t: Toolproof, toolId: string, count: number): Promise<Attempt[]> {
  return attemptsFor(t, toolId, count);
}

/** Registers both tools and sets up `count` attempts of each. */
export async function setUpWorkloads(t: Toolproof, count: number, connections: number): Promise<Workload[]> {
  const lookupId = await registerWithRevision(t, lookupTool, lookupDefinition);
  const writeId = await registerWithRevision(t, writeTool, writeDefinition);
  const lookups = await attemptsFor(t, lookupId, count);
  const writes = await attemptsFor(t, writeId, count);
  return [
    {
      name: "lookup",
      attempts: lookups,
      requests: dispatches(t, lookups, lookupTool.name, { patient_id: "P-0042", include: "status" }),
      check: new EvidenceCheck(t, lookups, null, connections),
    },
    {
      name: "write",
      attempts: writes,
      requests: dispatches(t, writes, writeTool.name, { slot: "2026-03-02T09:00", patient_id: "P-0042" }),
      check: new EvidenceCheck(t, writes, booking, connections),
    },
  ];
}

/**
 * What a workload expects of one recorded call's result (its seq within the attempt given): null
 * when it is right, else why not. Every recorded call must have the outcome "result" in any case.
 */
export type ResultCheck = (result: unknown, seq: number) => string | null;

/** The write workload: the first call of each attempt books, every later one answers a conflict. */
const booking: ResultCheck = (result, seq) => {
  const status = field(result, "status");
  return status === (seq === 1 ? "booked" : "conflict") ? null : `status ${String(status)}`;
};

export interface Verified {
  /** 2xx answers wrk saw over the whole run, warm-ups included. */
  answered: number;
  recorded: number;
  /** Calls wrk sent but stopped waiting for when its time ran out: recorded, never counted by wrk. */
  in_flight_at_stop: number;
  problems: string[];
}

/**
 * Reads every attempt's new evidence back through the API after each phase (which also copies
 * whatever is not yet in D1, so one phase's copying stays out of the next phase's figures), and
 * keeps a running comparison with what wrk saw answered.
 */
export class EvidenceCheck {
  private readonly seen = new Map<string, number>();
  private answered = 0;
  private runs = 0;
  private readonly problems: string[] = [];

  constructor(
    private readonly t: Toolproof,
    private readonly attempts: readonly Attempt[],
    private readonly expect: ResultCheck | null,
    private readonly connections: number,
  ) {}

  /** Counts one wrk run's 2xx answers. */
  answeredBy(load: { requests: number; non_2xx: number }): void {
    this.answered += load.requests - load.non_2xx;
    this.runs++;
  }

  /** Reads what each attempt recorded since the last read. */
  async readBack(): Promise<void> {
    let cursor = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const attempt = this.attempts[cursor++];
        if (!attempt) return;
        let after = this.seen.get(attempt.id) ?? 0;
        for (;;) {
          const page = await api(this.t, "GET", `/api/attempts/${attempt.id}/evidence?after=${after}`);
          const items = field(page, "calls");
          for (const entry of Array.isArray(items) ? items : []) {
            const seq = field(entry, "seq");
            if (seq !== after + 1) this.problems.push(`${attempt.id}: seq ${String(seq)} after ${after}`);
            after = typeof seq === "number" ? seq : after + 1;
            if (field(entry, "outcome") !== "result")
              this.problems.push(`${attempt.id}#${after}: ${JSON.stringify(field(entry, "error"))}`);
            const wrong = this.expect?.(field(entry, "result"), after) ?? null;
            if (wrong !== null) this.problems.push(`${attempt.id}#${after}: ${wrong}`);
          }
          if (typeof field(page, "next_cursor") !== "string") break;
        }
        this.seen.set(attempt.id, after);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }

  result(): Verified {
    const recorded = [...this.seen.values()].reduce((sum, n) => sum + n, 0);
    const inFlight = recorded - this.answered;
    const problems = [...this.problems];
    // Each wrk run may stop with up to one call per connection sent but not yet answered.
    if (inFlight < 0) problems.unshift(`${-inFlight} answered calls are missing from the evidence`);
    const most = this.runs * this.connections;
    if (inFlight > most)
      problems.unshift(
        `${inFlight} more calls recorded than answered (at most ${most} can be in flight when wrk stops)`,
      );
    return { answered: this.answered, recorded, in_flight_at_stop: inFlight, problems };
  }
}
