/**
 * Where an output schema lets a result carry free text: every string field without the
 * constraints a payload would break (enum, const, format, pattern), with its length bounds. The
 * walk follows properties, array items, allOf/anyOf/oneOf branches and local $refs, so a field
 * of one anyOf branch is found too; whether a given result may take it is settled afterwards by
 * validating the rendered result, never assumed.
 */
import { resolveLocalRef } from "../contract/derive.js";
import { isJsonObject, pointer, pointerToken, type Problem } from "../json.js";

export interface StringField {
  /** Keys from the result's root; "*" stands for every item of an array. */
  path: string[];
  /** JSON Pointer of the string schema inside the output schema. */
  schema: string;
  minLength: number;
  maxLength: number | null;
  /** The property is listed in `required` (so a result that lacks it is of another branch). */
  required: boolean;
}

interface FieldSurvey {
  fields: StringField[];
  /** String schemas that a payload could never satisfy, with why (for the refusal). */
  rejected: Problem[];
}

const MAX_DEPTH = 24;
const REFUSING = ["enum", "const", "format", "pattern", "contentEncoding"] as const;

export function stringFields(outputSchema: unknown): FieldSurvey {
  const survey: FieldSurvey = { fields: [], rejected: [] };
  walk(outputSchema, outputSchema, "", [], true, survey, 0);
  // One entry per (path, schema): anyOf branches that repeat a field keep their own bounds.
  const seen = new Set<string>();
  survey.fields = survey.fields.filter((field) => {
    const key = `${field.path.join("\u0000")}|${field.schema}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return survey;
}

function walk(
  root: unknown,
  schema: unknown,
  at: string,
  path: string[],
  required: boolean,
  survey: FieldSurvey,
  depth: number,
): void {
  if (depth > MAX_DEPTH || !isJsonObject(schema)) return;
  if (typeof schema.$ref === "string") {
    const target = resolveLocalRef(root, schema.$ref);
    if (target !== null) walk(root, target.schema, target.at, path, required, survey, depth + 1);
  }
  for (const keyword of ["allOf", "anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches))
      for (const [i, branch] of branches.entries())
        walk(root, branch, `${at}/${keyword}/${i}`, path, required, survey, depth + 1);
  }
  if (declaresString(schema)) {
    const refusing = REFUSING.find((keyword) => Object.hasOwn(schema, keyword));
    if (refusing !== undefined) {
      survey.rejected.push({
        path: `${at}/${refusing}`,
        message: `the string at ${describePath(path)} has "${refusing}", which a payload would not satisfy`,
      });
    } else {
      survey.fields.push({
        path,
        schema: at,
        minLength: typeof schema.minLength === "number" ? schema.minLength : 0,
        maxLength: typeof schema.maxLength === "number" ? schema.maxLength : null,
        required,
      });
    }
  }
  if (isJsonObject(schema.properties)) {
    const requiredKeys = Array.isArray(schema.required) ? schema.required : [];
    for (const key of Object.keys(schema.properties)) {
      walk(
        root,
        schema.properties[key],
        `${at}/properties/${pointerToken(key)}`,
        [...path, key],
        requiredKeys.includes(key),
        survey,
        depth + 1,
      );
    }
  }
  if (isJsonObject(schema.items)) walk(root, schema.items, `${at}/items`, [...path, "*"], true, survey, depth + 1);
  if (Array.isArray(schema.prefixItems))
    for (const [i, item] of schema.prefixItems.entries()) {
      walk(root, item, `${at}/prefixItems/${i}`, [...path, String(i)], true, survey, depth + 1);
    }
}

function declaresString(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  if (type === "string") return true;
  return Array.isArray(type) && type.includes("string");
}

/** "/supplier" for a path, "the result" for the root. */
export function describePath(path: readonly string[]): string {
  return path.length === 0 ? "the result" : pointer(...path);
}
