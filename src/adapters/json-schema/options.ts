/**
 * Options and the observable cache shared by both SchemaValidator implementations.
 */
import type { SchemaValidator } from "../../core/ports.js";
import type { Draft } from "./drafts.js";

export interface ValidatorOptions {
  /** Distinct schemas kept prepared (least recently used evicted first). Default 500. */
  cacheSize?: number;
  /**
   * Documents "$ref" may point to by absolute URI (URI → schema), standing in for remote
   * schemas, which are never fetched. The service passes none; the conformance suite passes the
   * suite's remotes.
   */
  knownSchemas?: Readonly<Record<string, unknown>>;
  /** The draft of schemas without "$schema". The port says 2020-12; the draft-07 suite needs 7. */
  defaultDraft?: Draft;
}

/** A SchemaValidator whose prepared-schema cache can be observed (for tests and metrics). */
export interface CachingSchemaValidator extends SchemaValidator {
  /** Schemas held in the bounded cache. */
  cachedSchemas(): number;
}
