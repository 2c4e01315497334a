/**
 * The seed's accounts-payable agent (get_invoice, place_invoice_on_hold) and its reviewed policy,
 * as fresh objects per call so each test can drift a copy without touching the others.
 */
import { readManifest } from "../../../src/core/policy/manifest.js";
import type { ManifestOptions } from "../../../src/core/policy/manifest.js";
import { parsePolicy } from "../../../src/core/policy/parse-policy.js";
import type { CheckReport, Policy } from "../../../src/core/policy/types.js";
import { checkManifest } from "../../../src/core/policy/check.js";

export const GET_INVOICE_DESCRIPTION = "Return the supplier, amount and status of one invoice.";
export const HOLD_DESCRIPTION = "Stop an approved invoice from being paid until someone releases the hold.";

const invoiceId = { type: "string", description: "Invoice number, for example INV-10423" };

/** A policy document as tests build it; extra fields are allowed so tests can also build malformed ones. */
export interface PolicyDocument {
  tools: Record<string, string>;
  [field: string]: unknown;
}

export function seedPolicyDocument(): PolicyDocument {
  return {
    tools: { get_invoice: "never_require", place_invoice_on_hold: "always_require" },
    write_verbs: ["place_", "release_", "create_", "send_"],
    min_description_length: 20,
    closed_enums: { place_invoice_on_hold: { reason: ["disputed", "duplicate", "awaiting_po"] } },
  };
}

export interface ToolEntry {
  name: string;
  description?: string | null;
  approval_mode?: string | null;
  parameters?: unknown;
}

export function getInvoice(): ToolEntry {
  return {
    name: "get_invoice",
    description: GET_INVOICE_DESCRIPTION,
    approval_mode: "never_require",
    parameters: { type: "object", properties: { invoice_id: { ...invoiceId } }, required: ["invoice_id"] },
  };
}

export function placeInvoiceOnHold(): ToolEntry & {
  parameters: { type: string; properties: Record<string, unknown>; required: string[] };
} {
  return {
    name: "place_invoice_on_hold",
    description: HOLD_DESCRIPTION,
    approval_mode: "always_require",
    parameters: {
      type: "object",
      properties: {
        invoice_id: { ...invoiceId },
        reason: {
          type: "string",
          enum: ["disputed", "duplicate", "awaiting_po"],
          description: "Why the invoice is being held",
        },
      },
      required: ["invoice_id", "reason"],
    },
  };
}

export function seedManifest(): { tools: ToolEntry[]; mcp_servers?: unknown[] } {
  return { tools: [getInvoice(), placeInvoiceOnHold()] };
}

export function policyOf(document: unknown): Policy {
  const parsed = parsePolicy(document);
  if (!parsed.ok) throw new Error(`fixture policy invalid: ${JSON.stringify(parsed.problems)}`);
  return parsed.policy;
}

/** Parses both documents and checks; throws if either is malformed (tests of malformed input call the parsers directly). */
export function check(policyDocument: unknown, manifestDocument: unknown, options: ManifestOptions = {}): CheckReport {
  const policy = policyOf(policyDocument);
  const manifest = readManifest(manifestDocument, policy, options);
  if (!manifest.ok) throw new Error(`fixture manifest invalid: ${JSON.stringify(manifest.problems)}`);
  return checkManifest(policy, manifest.manifest);
}
