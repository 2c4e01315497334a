/** Datasets (routes.ts beside this file); docs/datasets.md. */
import { z } from "zod";
import type { DatasetSummary, DatasetVersion } from "../../adapters/d1/datasets.js";
import { JSON_BODY_ERRORS, type OperationDoc } from "../http/openapi/operation.js";
import { named } from "../http/openapi/schemas.js";
import {
  assertSameFields,
  JsonObjectValue,
  JsonValue,
  keyId,
  page,
  PAGING,
  type SameFields,
  timestamp,
} from "../http/openapi/common.js";
import { DATASET_BODY_LIMIT, MAX_DESCRIPTION_LENGTH } from "./body.js";

const ManageTools = { kind: "api_key", permission: "AIManager:ManageTools" } as const;
const datasetName = {
  name: "The dataset's name: 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit.",
};

const versionFields = {
  name: z.string(),
  version: z.number().int().describe("1 for a dataset's first version, then one more per saved change."),
  content_hash: z
    .string()
    .describe("SHA-256 (hex) of the canonical JSON text: the document with no whitespace, in its own key order."),
  bytes: z.number().int().describe("Bytes of the canonical JSON text (what GET .../content answers)."),
  description: z.string().nullable().describe("The ?description= it was saved with, or null."),
  created_by: keyId,
  created_at: timestamp,
};
const DatasetVersionSchema = named("DatasetVersion", z.object(versionFields));
assertSameFields<SameFields<z.infer<typeof DatasetVersionSchema>, DatasetVersion>>();

const Collection = z.object({
  name: z.string().describe("A top-level member of the document."),
  kind: z.enum(["object", "array"]).describe("object: records by key; array: records in order."),
  records: z.number().int().describe("Its members (object) or elements (array)."),
});
const DatasetVersionWithCollections = named(
  "DatasetVersionWithCollections",
  z.object({
    ...versionFields,
    collections: z
      .array(Collection)
      .describe("The document's top-level objects and arrays, in its order, with their record counts."),
  }),
);
const DatasetListItem = z.object({
  name: z.string(),
  latest: DatasetVersionSchema,
  created_at: timestamp.describe("When version 1 was stored."),
});
assertSameFields<SameFields<z.infer<typeof DatasetListItem>, DatasetSummary>>();
const DatasetRecord = named(
  "DatasetRecord",
  z.object({
    name: z.string(),
    version: z.number().int(),
    pointer: z.string().describe("The JSON Pointer, as the query gave it (decoded)."),
    value: JsonValue.describe("What the pointer names: a record, a field of one, or a whole collection."),
  }),
);
const DatasetDocument = named(
  "DatasetDocument",
  JsonObjectValue.describe(
    'A dataset: a JSON object whose top-level members are its collections, e.g. {"orders": {"#W1": {...}}, "users": {...}}.',
  ),
);

const versionPath = "/api/datasets/:name/versions/:version";

export const datasetOperations: OperationDoc[] = [
  {
    method: "get",
    path: "/api/datasets",
    tag: "Datasets",
    summary: "List the tenant's datasets",
    description: "By name, each with its latest version.",
    access: ManageTools,
    query: PAGING,
    responses: { 200: { description: "A page of datasets.", schema: page("DatasetPage", DatasetListItem) } },
    errors: ["invalid_request"],
  },
  {
    method: "post",
    path: "/api/datasets/:name/versions",
    tag: "Datasets",
    summary: "Save a dataset version",
    description: `The body is the whole dataset (a JSON object, up to ${DATASET_BODY_LIMIT} bytes). It becomes the next version (201), unless the latest version holds the same content: then nothing is added and the latest is answered (200). Versions are never changed or removed.`,
    access: ManageTools,
    params: datasetName,
    query: [
      {
        name: "description",
        description: `What this version changes (at most ${MAX_DESCRIPTION_LENGTH} characters), percent-encoded UTF-8.`,
        schema: { type: "string", maxLength: MAX_DESCRIPTION_LENGTH },
      },
      {
        name: "base_version",
        description:
          "The version your change is based on (0: the dataset should not exist yet). When it is not the latest, the save is refused with 409 stale_dataset_version and nothing is stored.",
        schema: { type: "integer", minimum: 0 },
      },
    ],
    body: {
      schema: DatasetDocument,
      example: { orders: { "#W1": { status: "pending", user_id: "u1" } }, users: { u1: { name: "Ada" } } },
    },
    responses: {
      200: { description: "The latest version already held this content.", schema: DatasetVersionWithCollections },
      201: {
        description: "The new version.",
        schema: DatasetVersionWithCollections,
        headers: { location: { description: "The version's URL.", schema: { type: "string" } } },
      },
    },
    errors: [...JSON_BODY_ERRORS, "stale_dataset_version"],
  },
  {
    method: "get",
    path: "/api/datasets/:name/versions",
    tag: "Datasets",
    summary: "A dataset's versions",
    description: "Newest first, paged.",
    access: ManageTools,
    params: datasetName,
    query: PAGING,
    responses: {
      200: {
        description: "A page of versions.",
        schema: page("DatasetVersionPage", DatasetVersionSchema, { name: z.string() }),
      },
    },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: versionPath,
    tag: "Datasets",
    summary: "Read one dataset version",
    description: "Its metadata and collections (not the content: see .../content).",
    access: ManageTools,
    params: datasetName,
    responses: { 200: { description: "The version.", schema: DatasetVersionWithCollections } },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: `${versionPath}/content`,
    tag: "Datasets",
    summary: "Read a dataset version's content",
    description:
      "The canonical JSON text, streamed. Its ETag is the content hash: If-None-Match with it answers 304 with no body. A version never changes, so the answer may be cached for good.",
    access: ManageTools,
    params: datasetName,
    headers: [
      {
        name: "if-none-match",
        description: 'The ETag of a copy you hold ("<content_hash>"): 304 when it is this version\'s.',
        schema: { type: "string" },
      },
    ],
    responses: {
      200: {
        description: "The dataset.",
        schema: DatasetDocument,
        headers: {
          etag: { description: 'The content hash, quoted: "<content_hash>".', schema: { type: "string" } },
          "cache-control": { description: "private, max-age=31536000, immutable.", schema: { type: "string" } },
        },
      },
    },
    errors: ["invalid_request", "not_found"],
  },
  {
    method: "get",
    path: `${versionPath}/record`,
    tag: "Datasets",
    summary: "Read one record by JSON Pointer",
    description:
      'pointer is an RFC 6901 JSON Pointer ("~0" for "~", "~1" for "/"), percent-encoded in the query: /orders/#W1 is ?pointer=/orders/%23W1. A pointer that names nothing answers 404 saying where the path stops.',
    access: ManageTools,
    params: datasetName,
    query: [
      {
        name: "pointer",
        required: true,
        description: 'A JSON Pointer into the dataset ("" for the whole document).',
        schema: { type: "string" },
      },
    ],
    responses: { 200: { description: "What the pointer names.", schema: DatasetRecord } },
    errors: ["invalid_request", "not_found"],
  },
];
