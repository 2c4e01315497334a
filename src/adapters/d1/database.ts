/**
 * The drizzle view of a D1 binding, built once per binding. Building it walks the whole schema,
 * which cost more than routing a request when it was done per request.
 */
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema.js";

/** drizzle's query builder over the binding, with the binding itself as `$client` for raw batches. */
export type Database = DrizzleD1Database<typeof schema> & { $client: D1Database };

const built = new WeakMap<D1Database, Database>();

export function databaseOf(binding: D1Database): Database {
  let db = built.get(binding);
  if (!db) {
    db = drizzle(binding, { schema });
    built.set(binding, db);
  }
  return db;
}
