/**
 * What a dataset holds, at a glance: each top-level member that is a collection (an object of
 * records by id, or an array of records) with its record count, in the document's order. Scalars
 * at the top level (a version string, a date) are not collections and are left out.
 */
import type { JsonObject } from "../json.js";

export interface DatasetCollection {
  name: string;
  kind: "object" | "array";
  records: number;
}

export function datasetCollections(document: JsonObject): DatasetCollection[] {
  const collections: DatasetCollection[] = [];
  for (const [name, value] of Object.entries(document)) {
    if (Array.isArray(value)) collections.push({ name, kind: "array", records: value.length });
    else if (typeof value === "object" && value !== null)
      collections.push({ name, kind: "object", records: Object.keys(value).length });
  }
  return collections;
}
