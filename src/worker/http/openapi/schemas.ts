/**
 * Zod schemas → JSON Schema 2020-12 (OpenAPI 3.1's dialect) with zod 4's own z.toJSONSchema:
 * every schema registered here by name becomes components.schemas[name], and a registered schema
 * used inside another becomes a $ref to it. The registry is keyed by the schema object, so the
 * route files' schemas are registered here without changing them.
 */
import { z } from "zod";

interface SchemaMeta {
  id: string;
}

const registry = z.registry<SchemaMeta>();

/** Registers `schema` as components.schemas[id] (the same schema twice under one id is fine). */
export function named<T extends z.ZodType>(id: string, schema: T): T {
  const existing = registry.get(schema);
  if (existing && existing.id !== id) throw new Error(`schema registered twice: ${existing.id} and ${id}`);
  if (!existing) registry.add(schema, { id });
  return schema;
}

export function schemaId(schema: z.ZodType, usedBy: string): string {
  const meta = registry.get(schema);
  if (!meta) throw new Error(`${usedBy}: its schema is not registered with named()`);
  return meta.id;
}

export const componentRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/**
 * Every registered schema as JSON Schema. Input side (io "input"): a field with a default is
 * optional, as a client sends it. z.custom (the JSON object fields of schema-fields.ts, which are
 * custom so a "__proto__" key survives) has no JSON Schema of its own: every one of them is a JSON
 * object, so it is written as one.
 */
export function componentSchemas(): Record<string, Record<string, unknown>> {
  const converted = z.toJSONSchema(registry, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === "custom") ctx.jsonSchema.type = "object";
    },
  });
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const [id, schema] of Object.entries(converted.schemas)) {
    if (id === SHARED) continue;
    const { $schema: _dialect, $id: _id, ...rest } = schema as Record<string, unknown>;
    schemas[id] = rest;
  }
  return hoistShared(schemas, converted.schemas[SHARED]);
}

/** Where z.toJSONSchema puts a schema used in several components that has no id of its own (a recursive z.json(), say). */
const SHARED = "__shared";

/**
 * zod writes such a schema into a "__shared" document and refers to it as
 * `#/components/schemas/__shared#/$defs/schemaN`: a URI with two fragments, which resolves
 * nowhere. Each one becomes a component of its own (SharedSchemaN) and the refs point at it.
 * Registering the reused schema with named() gives it a readable name instead.
 */
function hoistShared(
  schemas: Record<string, Record<string, unknown>>,
  shared: unknown,
): Record<string, Record<string, unknown>> {
  const defs = (shared as { $defs?: Record<string, Record<string, unknown>> } | undefined)?.$defs;
  if (!defs || Object.keys(defs).length === 0) return schemas;
  const renamed = (def: string) => `Shared${def.charAt(0).toUpperCase()}${def.slice(1)}`;
  const all = {
    ...schemas,
    ...Object.fromEntries(Object.entries(defs).map(([def, schema]) => [renamed(def), schema])),
  };
  const text = JSON.stringify(all).replace(
    /"#\/components\/schemas\/__shared#\/\$defs\/([^"]+)"/g,
    (_match, def: string) => JSON.stringify(`#/components/schemas/${renamed(def)}`),
  );
  // SAFETY: the same JSON Schema objects, serialized and read back with only $ref strings changed.
  return JSON.parse(text) as Record<string, Record<string, unknown>>;
}

/** A route's own query schema (a zod object) as OpenAPI query parameters, each described by `descriptions`. */
export function queryParameters(
  schema: z.ZodObject,
  descriptions: Record<string, string>,
): Array<{ name: string; description: string; schema: Record<string, unknown>; required: boolean }> {
  return Object.entries(schema.shape).map(([name, field]) => {
    const { $schema: _dialect, ...converted } = z.toJSONSchema(field as z.ZodType, {
      io: "input",
      target: "draft-2020-12",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    return {
      name,
      description: descriptions[name] ?? name,
      schema: converted,
      required: !(field as z.ZodType).safeParse(undefined).success,
    };
  });
}
