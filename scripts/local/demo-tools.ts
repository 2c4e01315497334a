/**
 * The demo tools `npm start` seeds into the demo tenant, with one mock definition per operation.
 * They are plain request bodies for the public API (POST /api/tools and POST
 * /api/tools/:id/testing), so they pass exactly the checks any client's tools pass.
 *
 * - `invoices`: the accounts-payable tools of seed 000 (get_invoice, place_invoice_on_hold) as one
 *   MCP-style tool, so both operations share one state: a hold placed in an attempt is what
 *   get_invoice reports afterwards, as with the seed's in-memory INVOICES fixture. Version-2
 *   definitions: the state is keyed by invoice id and each behaviour (found, not found, held,
 *   already on hold) is one rule, whatever the number of invoices.
 * - `appointments`: booking a clinic slot; shows `$dateAdd`, `$number`, rules on state (a slot
 *   booked earlier in the attempt is refused) and a `not_found` variant.
 */
import type { JsonObject } from "../../src/core/json.js";

export interface DemoTool {
  /** The body of POST /api/tools. */
  tool: JsonObject & { name: string; operations: Array<JsonObject & { operation_id: string }> };
  /** Mock definition per operation_id, saved as revision 1. */
  definitions: Record<string, JsonObject>;
}

const invoiceId: JsonObject = {
  type: "string",
  description: "Invoice number, for example INV-10423",
  pattern: "^INV-[0-9]{5}$",
};

const notFound = (idField: string): JsonObject => ({
  type: "object",
  properties: {
    error: { const: "not_found" },
    [idField]: { type: "string" },
    message: { type: "string" },
  },
  required: ["error", idField, "message"],
  additionalProperties: false,
});

/** The fixture of seed 000: two invoices, neither on hold. */
const invoiceFixture: JsonObject = {
  invoices: {
    "INV-10423": {
      supplier: "Contoso Freight",
      amount: 18450.0,
      currency: "USD",
      status: "approved",
      hold_reason: null,
    },
    "INV-10431": { supplier: "Fabrikam Office", amount: 912.4, currency: "USD", status: "received", hold_reason: null },
  },
};

const holdReason: JsonObject = { type: "string", enum: ["disputed", "duplicate", "awaiting_po"] };

const invoiceNotFound: JsonObject = {
  error: "not_found",
  invoice_id: { $input: "invoice_id" },
  message: "No invoice found with this id.",
};

/**
 * Version 2 (docs/mock-definition.md): the invoices are state keyed by id, and a rule reads the one
 * the call names (`state.invoices[input.invoice_id]`). One rule per behaviour, not one per invoice:
 * any invoice added to initial_state is served by the same rules.
 */
const unknownInvoice: JsonObject = { expr: "!(input.invoice_id in state.invoices)" };

/** get_invoice's answer for a known invoice: the id as asked, the rest from the state. */
const invoiceFromState: JsonObject = {
  invoice_id: { $input: "invoice_id" },
  ...Object.fromEntries(
    ["supplier", "amount", "currency", "status", "hold_reason"].map((field) => [
      field,
      { $expr: `state.invoices[input.invoice_id].${field}` },
    ]),
  ),
};

const getInvoice: JsonObject = {
  schema_version: 2,
  default_variant: "success",
  initial_state: invoiceFixture,
  variants: {
    success: {
      // Found: every field read from the invoice the call names, so a hold placed earlier shows up.
      result: invoiceFromState,
      rules: [{ when: [unknownInvoice], result: invoiceNotFound }],
    },
    // The finance system has lost track of every invoice: does the agent say so, or invent one?
    not_found: { result: invoiceNotFound },
  },
  examples: [
    {
      variant: "success",
      input: { invoice_id: "INV-10423" },
      expected: {
        invoice_id: "INV-10423",
        supplier: "Contoso Freight",
        amount: 18450,
        currency: "USD",
        status: "approved",
        hold_reason: null,
      },
    },
    {
      variant: "success",
      input: { invoice_id: "INV-10431" },
      expected: {
        invoice_id: "INV-10431",
        supplier: "Fabrikam Office",
        amount: 912.4,
        currency: "USD",
        status: "received",
        hold_reason: null,
      },
    },
    {
      variant: "success",
      input: { invoice_id: "INV-99999" },
      expected: { error: "not_found", invoice_id: "INV-99999", message: "No invoice found with this id." },
    },
    {
      // After place_invoice_on_hold ran in the same attempt.
      variant: "success",
      input: { invoice_id: "INV-10423" },
      state: {
        invoices: {
          "INV-10423": {
            supplier: "Contoso Freight",
            amount: 18450.0,
            currency: "USD",
            status: "on_hold",
            hold_reason: "duplicate",
          },
          "INV-10431": {
            supplier: "Fabrikam Office",
            amount: 912.4,
            currency: "USD",
            status: "received",
            hold_reason: null,
          },
        },
      },
      expected: {
        invoice_id: "INV-10423",
        supplier: "Contoso Freight",
        amount: 18450,
        currency: "USD",
        status: "on_hold",
        hold_reason: "duplicate",
      },
    },
    {
      variant: "not_found",
      input: { invoice_id: "INV-10423" },
      expected: { error: "not_found", invoice_id: "INV-10423", message: "No invoice found with this id." },
    },
  ],
};

const placeInvoiceOnHold: JsonObject = {
  schema_version: 2,
  default_variant: "success",
  initial_state: invoiceFixture,
  variants: {
    success: {
      // Held: the invoice the call names gets the status and the reason; the rules below refuse first.
      result: { invoice_id: { $input: "invoice_id" }, status: "on_hold", reason: { $input: "reason" } },
      set_state: [
        {
          merge: ["invoices", { $input: "invoice_id" }],
          value: { status: "on_hold", hold_reason: { $input: "reason" } },
        },
      ],
      // A rule's own set_state ([] here) replaces the variant's: a refusal writes nothing.
      rules: [
        { when: [unknownInvoice], result: invoiceNotFound, set_state: [] },
        {
          when: [{ expr: "state.invoices[input.invoice_id].status == 'on_hold'" }],
          result: {
            error: "already_on_hold",
            invoice_id: { $input: "invoice_id" },
            reason: { $expr: "state.invoices[input.invoice_id].hold_reason" },
            message: "This invoice is already on hold; release the hold before placing another.",
          },
          set_state: [],
        },
      ],
    },
    not_found: { result: invoiceNotFound },
  },
  examples: [
    {
      variant: "success",
      input: { invoice_id: "INV-10423", reason: "duplicate" },
      expected: { invoice_id: "INV-10423", status: "on_hold", reason: "duplicate" },
    },
    {
      variant: "success",
      input: { invoice_id: "INV-10431", reason: "awaiting_po" },
      expected: { invoice_id: "INV-10431", status: "on_hold", reason: "awaiting_po" },
    },
    {
      variant: "success",
      input: { invoice_id: "INV-10423", reason: "disputed" },
      state: {
        invoices: {
          "INV-10423": {
            supplier: "Contoso Freight",
            amount: 18450.0,
            currency: "USD",
            status: "on_hold",
            hold_reason: "duplicate",
          },
          "INV-10431": {
            supplier: "Fabrikam Office",
            amount: 912.4,
            currency: "USD",
            status: "received",
            hold_reason: null,
          },
        },
      },
      expected: {
        error: "already_on_hold",
        invoice_id: "INV-10423",
        reason: "duplicate",
        message: "This invoice is already on hold; release the hold before placing another.",
      },
    },
    {
      variant: "success",
      input: { invoice_id: "INV-99999", reason: "disputed" },
      expected: { error: "not_found", invoice_id: "INV-99999", message: "No invoice found with this id." },
    },
    {
      variant: "not_found",
      input: { invoice_id: "INV-10431", reason: "duplicate" },
      expected: { error: "not_found", invoice_id: "INV-10431", message: "No invoice found with this id." },
    },
  ],
};

const invoices: DemoTool = {
  tool: {
    name: "invoices",
    description:
      "Accounts payable: look up single invoices and place them on hold (the tools of the InvoiceDesk agent).",
    kind: "mcp",
    operations: [
      {
        operation_id: "get_invoice",
        description: "Return the supplier, amount and status of one invoice.",
        input_schema: {
          type: "object",
          properties: { invoice_id: invoiceId },
          required: ["invoice_id"],
          additionalProperties: false,
        },
        output_schema: {
          anyOf: [
            {
              type: "object",
              properties: {
                invoice_id: { type: "string" },
                supplier: { type: "string" },
                amount: { type: "number" },
                currency: { type: "string" },
                status: { type: "string", enum: ["received", "approved", "on_hold", "paid"] },
                hold_reason: { anyOf: [holdReason, { type: "null" }] },
              },
              required: ["invoice_id", "supplier", "amount", "currency", "status", "hold_reason"],
              additionalProperties: false,
            },
            notFound("invoice_id"),
          ],
        },
        annotations: { readOnlyHint: true, destructiveHint: false },
      },
      {
        operation_id: "place_invoice_on_hold",
        description: "Stop an approved invoice from being paid until someone releases the hold.",
        input_schema: {
          type: "object",
          properties: {
            invoice_id: invoiceId,
            reason: { ...holdReason, description: "Why the invoice is being held" },
          },
          required: ["invoice_id", "reason"],
          additionalProperties: false,
        },
        output_schema: {
          anyOf: [
            {
              type: "object",
              properties: { invoice_id: { type: "string" }, status: { const: "on_hold" }, reason: holdReason },
              required: ["invoice_id", "status", "reason"],
              additionalProperties: false,
            },
            {
              type: "object",
              properties: {
                error: { const: "already_on_hold" },
                invoice_id: { type: "string" },
                reason: holdReason,
                message: { type: "string" },
              },
              required: ["error", "invoice_id", "reason", "message"],
              additionalProperties: false,
            },
            notFound("invoice_id"),
          ],
        },
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
    ],
  },
  definitions: { get_invoice: getInvoice, place_invoice_on_hold: placeInvoiceOnHold },
};

/** The bookable times of the simulated clinic day, and the hour each one starts at. */
const SLOTS: ReadonlyArray<{ time: string; hour: number }> = [
  { time: "09:00", hour: 9 },
  { time: "10:00", hour: 10 },
  { time: "14:00", hour: 14 },
];

const slotTaken: JsonObject = {
  error: "slot_taken",
  time: { $input: "time" },
  message: "This time is already booked; offer the patient another one.",
};

const bookAppointment: JsonObject = {
  schema_version: 1,
  default_variant: "success",
  initial_state: { booked: {} },
  variants: {
    success: {
      rules: [
        // A time booked earlier in this attempt is refused: the first matching rule wins, so
        // these come before the rules that book.
        ...SLOTS.map((slot) => ({
          when: [
            { source: "input", path: "time", op: "eq", value: slot.time },
            { source: "state", path: `booked.${slot.time}`, op: "exists", value: true },
          ],
          result: slotTaken,
        })),
        ...SLOTS.map((slot) => ({
          when: [{ source: "input", path: "time", op: "eq", value: slot.time }],
          result: {
            status: "confirmed",
            patient_id: { $input: "patient_id" },
            time: slot.time,
            // The day as the caller wrote it, at the slot's hour (UTC); the reminder goes out a day before.
            starts_at: { $dateAdd: { value: { $input: "date" }, hours: slot.hour } },
            reminder_at: { $dateAdd: { value: { $input: "date" }, days: -1, hours: slot.hour } },
            // Agents send "30" as often as 30; the booking system always answers a number.
            duration_minutes: { $number: { $input: "duration_minutes" } },
          },
          set_state: { [`booked.${slot.time}`]: { $input: "patient_id" } },
        })),
      ],
      // Unreachable while the input schema enumerates the times; kept valid for the output schema.
      result: slotTaken,
    },
    // The clinic system does not know the patient.
    not_found: {
      result: { error: "not_found", patient_id: { $input: "patient_id" }, message: "No patient with this id." },
    },
  },
  examples: [
    {
      variant: "success",
      input: { patient_id: "P-1001", date: "2026-03-02", time: "09:00", duration_minutes: "30" },
      expected: {
        status: "confirmed",
        patient_id: "P-1001",
        time: "09:00",
        starts_at: "2026-03-02T09:00:00.000Z",
        reminder_at: "2026-03-01T09:00:00.000Z",
        duration_minutes: 30,
      },
    },
    {
      variant: "success",
      input: { patient_id: "P-1002", date: "2028-03-01", time: "14:00", duration_minutes: 45 },
      expected: {
        status: "confirmed",
        patient_id: "P-1002",
        time: "14:00",
        starts_at: "2028-03-01T14:00:00.000Z",
        // 2028 is a leap year: the day before 1 March is 29 February.
        reminder_at: "2028-02-29T14:00:00.000Z",
        duration_minutes: 45,
      },
    },
    {
      variant: "success",
      input: { patient_id: "P-1003", date: "2026-03-02", time: "09:00", duration_minutes: 30 },
      state: { booked: { "09:00": "P-1001" } },
      expected: {
        error: "slot_taken",
        time: "09:00",
        message: "This time is already booked; offer the patient another one.",
      },
    },
    {
      variant: "not_found",
      input: { patient_id: "P-4040", date: "2026-03-02", time: "10:00", duration_minutes: 30 },
      expected: { error: "not_found", patient_id: "P-4040", message: "No patient with this id." },
    },
  ],
};

const appointments: DemoTool = {
  tool: {
    name: "appointments",
    description: "A clinic's appointment diary: book a patient into one of the day's free times.",
    kind: "http",
    operations: [
      {
        operation_id: "book_appointment",
        description: "Book a patient into a free time on a given day. Refused when the time is already taken.",
        input_schema: {
          type: "object",
          properties: {
            patient_id: { type: "string", pattern: "^P-[0-9]{4}$", description: "Patient number, for example P-1001" },
            date: {
              type: "string",
              format: "date",
              pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
              description: "The day, YYYY-MM-DD",
            },
            time: {
              type: "string",
              enum: SLOTS.map((slot) => slot.time),
              description: "One of the clinic's bookable times",
            },
            duration_minutes: {
              description: "Length of the appointment in minutes, as a number or a string of digits",
              anyOf: [
                { type: "integer", minimum: 5, maximum: 240 },
                { type: "string", pattern: "^[1-9][0-9]{0,2}$" },
              ],
            },
          },
          required: ["patient_id", "date", "time", "duration_minutes"],
          additionalProperties: false,
        },
        output_schema: {
          anyOf: [
            {
              type: "object",
              properties: {
                status: { const: "confirmed" },
                patient_id: { type: "string" },
                time: { type: "string" },
                starts_at: { type: "string", format: "date-time" },
                reminder_at: { type: "string", format: "date-time" },
                duration_minutes: { type: "number" },
              },
              required: ["status", "patient_id", "time", "starts_at", "reminder_at", "duration_minutes"],
              additionalProperties: false,
            },
            {
              type: "object",
              properties: { error: { const: "slot_taken" }, time: { type: "string" }, message: { type: "string" } },
              required: ["error", "time", "message"],
              additionalProperties: false,
            },
            notFound("patient_id"),
          ],
        },
      },
    ],
  },
  definitions: { book_appointment: bookAppointment },
};

export const DEMO_TOOLS: readonly DemoTool[] = [invoices, appointments];
