/**
 * A definition compiled for calls: paths split, templates classified, literals folded. Compiled
 * once per definition object and cached by identity, so a call never re-parses anything.
 *
 * The cache assumes what the rest of the system already does: a definition is an immutable value
 * once it is parsed or used. Changing a definition object in place after a call would leave the
 * cached form stale; build a new object (or parse again) instead.
 */
import { compileCondition, type CompiledCondition } from "./conditions.js";
import { compileTemplate, Template, VERSION_1, type TemplateContext } from "./expressions.js";
import { LIMITS } from "./limits.js";
import { splitPath, type Segments } from "./paths.js";
import { buildRuleIndex, type RuleIndex } from "./rule-index.js";
import type { MockDefinition } from "./types.js";
import { child } from "./values.js";
import { compileWrites, type CompiledWrite } from "./writes.js";

interface CompiledSetEntry {
  readonly key: string;
  readonly segments: Segments;
  readonly template: Template;
  /** JSON Pointer of this key in the definition, for error details. */
  readonly at: string;
}

/** set_state in key order; empty when nothing is set. */
export type CompiledSetState = readonly CompiledSetEntry[];

/** A delay_ms that is absent (inherit), valid, or broken (only without the parser). */
export type CompiledDelay =
  | { readonly ok: true; readonly ms: number | undefined }
  | { readonly ok: false; readonly at: string };

export interface CompiledRule {
  readonly when: readonly CompiledCondition[];
  readonly result: Template | undefined;
  readonly setState: CompiledSetState | undefined;
  /** Version 2: the ordered writes, when the rule has its own set_state. */
  readonly writes: readonly CompiledWrite[] | undefined;
  readonly delay: CompiledDelay;
}

interface CompiledVariant {
  readonly name: string;
  readonly result: Template;
  readonly setState: CompiledSetState;
  /** Version 2: the ordered writes ([] when none; version 1 uses setState). */
  readonly writes: readonly CompiledWrite[];
  readonly delay: CompiledDelay;
  readonly rules: readonly CompiledRule[];
  /** Narrows the rules to check on a call; null when the variant has too few rules to bother. */
  readonly ruleIndex: RuleIndex | null;
}

interface CompiledDefinition {
  readonly version: 1 | 2;
  readonly variants: ReadonlyMap<string, CompiledVariant>;
}

const cache = new WeakMap<object, CompiledDefinition>();

/**
 * Templates the parser already compiled, keyed by the template value's identity, so a freshly
 * parsed definition is not compiled twice. Scalars are not worth caching and are simply recompiled.
 */
export type TemplateCache = Map<unknown, Template>;

function templateOf(
  value: unknown,
  at: string,
  templates: TemplateCache | undefined,
  context: TemplateContext,
): Template {
  return (
    (value !== null && typeof value === "object" ? templates?.get(value) : undefined) ??
    compileTemplate(value, at, null, 0, context)
  );
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  // SAFETY: a non-null, non-array object is read as a record of unknown values.
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function compileSetState(raw: unknown, at: string, templates: TemplateCache | undefined): CompiledSetState {
  const record = asRecord(raw);
  if (!record) return [];
  return Object.keys(record).map((key) => {
    const keyAt = child(at, key);
    return { key, segments: splitPath(key), template: templateOf(record[key], keyAt, templates, VERSION_1), at: keyAt };
  });
}

function compileDelay(owner: Record<string, unknown>, at: string): CompiledDelay {
  if (!Object.hasOwn(owner, "delay_ms")) return { ok: true, ms: undefined };
  const ms = owner.delay_ms;
  if (typeof ms === "number" && Number.isInteger(ms) && ms >= LIMITS.minDelayMs && ms <= LIMITS.maxDelayMs) {
    return { ok: true, ms };
  }
  return { ok: false, at: `${at}/delay_ms` };
}

function compileVariant(
  name: string,
  raw: Record<string, unknown>,
  templates: TemplateCache | undefined,
  version: 1 | 2,
): CompiledVariant {
  const at = child("/variants", name);
  const context: TemplateContext = version === 2 ? { version: 2, locals: [] } : VERSION_1;
  const rawRules = Array.isArray(raw.rules) ? raw.rules : [];
  const rules = rawRules.map((rule: unknown, index: number): CompiledRule => {
    const ruleAt = `${at}/rules/${index}`;
    const record = asRecord(rule) ?? {};
    const hasSetState = Object.hasOwn(record, "set_state");
    return {
      when: Array.isArray(record.when)
        ? record.when.map((condition: unknown, c: number) =>
            compileCondition(condition, version, `${ruleAt}/when/${c}`),
          )
        : [],
      result: Object.hasOwn(record, "result")
        ? templateOf(record.result, `${ruleAt}/result`, templates, context)
        : undefined,
      // A rule's own "set_state": {} (or []) overrides the variant's, so presence (not content) decides.
      setState:
        hasSetState && version === 1 ? compileSetState(record.set_state, `${ruleAt}/set_state`, templates) : undefined,
      writes: hasSetState && version === 2 ? compileWrites(record.set_state, `${ruleAt}/set_state`, null) : undefined,
      delay: compileDelay(record, ruleAt),
    };
  });
  return {
    name,
    result: Object.hasOwn(raw, "result")
      ? templateOf(raw.result, `${at}/result`, templates, context)
      : new Template("invalid", null, [], [], [], `variant "${name}" has no result`, 0, 0, at),
    setState: version === 1 ? compileSetState(raw.set_state, `${at}/set_state`, templates) : [],
    writes:
      version === 2 && Object.hasOwn(raw, "set_state") ? compileWrites(raw.set_state, `${at}/set_state`, null) : [],
    delay: compileDelay(raw, at),
    rules,
    ruleIndex: buildRuleIndex(rules),
  };
}

/** The compiled form of `definition`, built on first use and then reused. */
export function compileDefinition(definition: MockDefinition, templates?: TemplateCache): CompiledDefinition {
  const cached = cache.get(definition);
  if (cached) return cached;
  const variants = new Map<string, CompiledVariant>();
  // Anything but 2 is read as version 1, which is what a definition without the parser was before.
  const version = definition.schema_version === 2 ? 2 : 1;
  const rawVariants = asRecord(definition.variants);
  if (rawVariants) {
    for (const name of Object.keys(rawVariants)) {
      const variant = asRecord(rawVariants[name]);
      if (variant) variants.set(name, compileVariant(name, variant, templates, version));
    }
  }
  const compiled: CompiledDefinition = { version, variants };
  cache.set(definition, compiled);
  return compiled;
}
