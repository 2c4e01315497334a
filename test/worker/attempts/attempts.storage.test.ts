/**
 * The attempt object's SQLite schema is versioned: each load applies the migration steps the
 * storage lacks, so objects already alive (leases outlive deploys) get what a later version adds.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EVIDENCE_COLUMNS } from "../../../src/core/simulation/evidence.js";
import { MIGRATIONS, AttemptStorage } from "../../../src/worker/attempts/storage.js";
import { AttemptObject } from "../../../src/worker/attempts/object.js";
import { newTenant } from "../helpers.js";
import {
  counterTool,
  createSimulation,
  dispatchJson,
  evidence,
  stubOf,
  type CreatedAttempt,
} from "../simulation-helpers.js";

const tenantPromise = newTenant();
const CURRENT = MIGRATIONS[MIGRATIONS.length - 1]?.version;

async function freshAttempt(): Promise<CreatedAttempt> {
  const [attempt] = (await createSimulation(await tenantPromise, { tools: [{ inline: counterTool }] })).attempts;
  if (!attempt) throw new Error("no attempt");
  return attempt;
}

/** The object's own tables (workerd's `_cf_` ones left out), each with its columns in order. */
function schemaOf(sql: SqlStorage): Record<string, string[]> {
  const names = sql
    .exec<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 4) != '_cf_' ORDER BY name`,
    )
    .toArray()
    .map((row) => row.name);
  return Object.fromEntries(names.map((name) => [name, tableColumns(sql, name)]));
}

/**
 * Turns an attempt's storage back into what objects had before versioning (version 0): the
 * version-1 tables and no meta, so the columns later steps added go, and the setup goes back into
 * the attempt row (version 7 moved it out).
 */
function backToVersionZero(sql: SqlStorage): void {
  sql.exec(`DROP TABLE meta`);
  sql.exec(`ALTER TABLE calls DROP COLUMN upstream`);
  sql.exec(`ALTER TABLE calls DROP COLUMN state_change`);
  sql.exec(`ALTER TABLE attempt ADD COLUMN setup TEXT`);
  sql.exec(`UPDATE attempt SET setup = (SELECT setup FROM attempt_setup)`);
  sql.exec(`DROP TABLE attempt_setup`);
}

function tableColumns(sql: SqlStorage, table: string): string[] {
  return sql
    .exec<{ name: string }>(`SELECT name FROM pragma_table_info(?)`, table)
    .toArray()
    .map((row) => row.name);
}

describe("the attempt object's schema version", () => {
  it("a new object is created at the current version, its calls table holding exactly the evidence columns", async () => {
    const attempt = await freshAttempt();
    const stored = await runInDurableObject<AttemptObject, unknown>(stubOf(attempt), (_instance, state) => ({
      meta: state.storage.sql.exec(`SELECT * FROM meta`).toArray(),
      columns: tableColumns(state.storage.sql, "calls"),
    }));
    expect(stored).toEqual({ meta: [{ id: 1, schema_version: CURRENT }], columns: [...EVIDENCE_COLUMNS] });
  });

  it("an object created before versioning (version 0: the tables, no meta) is migrated on load and keeps its calls", async () => {
    const attempt = await freshAttempt();
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 5 } })).toEqual({
      status: 200,
      body: { previous: 0 },
    });
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (instance, state) => {
      backToVersionZero(state.storage.sql);
      Reflect.set(instance, "live", undefined); // loaded afresh, as after a deploy
    });
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 6 } })).toEqual({
      status: 200,
      body: { previous: 5 },
    });
    const meta = await runInDurableObject<AttemptObject, unknown[]>(stubOf(attempt), (_instance, state) =>
      state.storage.sql.exec(`SELECT * FROM meta`).toArray(),
    );
    expect(meta).toEqual([{ id: 1, schema_version: CURRENT }]);
    expect((await evidence(attempt)).map((c) => c.seq)).toEqual([1, 2]);
  });

  it("a step added later reaches an object already alive at version N, once, and the object goes on answering", async () => {
    const attempt = await freshAttempt();
    await dispatchJson(attempt, { tool: "counter", arguments: { n: 1 } });
    const next = [
      ...MIGRATIONS,
      { version: (CURRENT ?? 0) + 1, statements: [`ALTER TABLE calls ADD COLUMN note TEXT`] },
    ];
    const outcome = await runInDurableObject<AttemptObject, unknown>(stubOf(attempt), (_instance, state) => {
      const storage = AttemptStorage.of(state.storage);
      const first = storage.migrate(next);
      const again = storage.migrate(next);
      return {
        first,
        again,
        columns: tableColumns(state.storage.sql, "calls").slice(-2),
        version: storage.schemaVersion(),
      };
    });
    expect(outcome).toEqual({
      first: { from: CURRENT, to: (CURRENT ?? 0) + 1 },
      again: { from: (CURRENT ?? 0) + 1, to: (CURRENT ?? 0) + 1 },
      columns: [EVIDENCE_COLUMNS[EVIDENCE_COLUMNS.length - 1], "note"],
      version: (CURRENT ?? 0) + 1,
    });
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 2 } })).toEqual({
      status: 200,
      body: { previous: 1 },
    });
    expect((await evidence(attempt)).map((c) => c.seq)).toEqual([1, 2]);
  });

  it("a new object is made in one step with only the tables its setup needs, each with the columns the steps give an older object", async () => {
    const fresh = await freshAttempt();
    const old = await freshAttempt();
    await runInDurableObject<AttemptObject, void>(stubOf(old), (instance, state) => {
      // Back to version 0, then loaded afresh: every step runs.
      backToVersionZero(state.storage.sql);
      Reflect.set(instance, "live", undefined);
    });
    for (const attempt of [fresh, old])
      expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 3 } })).toEqual({
        status: 200,
        body: { previous: 0 },
      });
    const [freshSchema, oldSchema] = await Promise.all(
      [fresh, old].map((attempt) =>
        runInDurableObject<AttemptObject, Record<string, string[]>>(stubOf(attempt), (_instance, state) =>
          schemaOf(state.storage.sql),
        ),
      ),
    );
    // Neither a real operation nor a dataset: no forwards, no dataset_records.
    expect(Object.keys(freshSchema ?? {})).toEqual(["attempt", "attempt_setup", "calls", "meta", "state"]);
    expect(Object.keys(oldSchema ?? {})).toEqual([
      "attempt",
      "attempt_setup",
      "calls",
      "dataset_records",
      "forwards",
      "meta",
      "state",
    ]);
    for (const table of ["attempt", "attempt_setup", "calls", "meta", "state"])
      expect(freshSchema?.[table]).toEqual(oldSchema?.[table]);
    expect(freshSchema?.calls).toEqual([...EVIDENCE_COLUMNS]);
  });

  it("stores the setup without the definitions' checked examples, which no call reads", async () => {
    const attempt = await freshAttempt();
    const definitions = await runInDurableObject<AttemptObject, unknown>(stubOf(attempt), (_instance, state) => {
      const row = state.storage.sql.exec<{ setup: string }>(`SELECT setup FROM attempt_setup`).one();
      const setup = JSON.parse(row.setup) as { operations: Array<{ definition: unknown }> };
      return setup.operations.map((op) => op.definition);
    });
    expect(definitions).toEqual([{ ...counterTool.testing, examples: [] }]);
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 4 } })).toEqual({
      status: 200,
      body: { previous: 0 },
    });
  });

  it("a new object holds the attempt it just stored, as its storage reads it back, before any call", async () => {
    const attempt = await freshAttempt();
    const { held, stored } = await runInDurableObject<AttemptObject, { held: unknown; stored: unknown }>(
      stubOf(attempt),
      (instance, state) => {
        const live: unknown = Reflect.get(instance, "live");
        const read = AttemptStorage.of(state.storage).readAttempt();
        return {
          // As JSON: the held operations are the isolate's shared copies (shared-operations.ts), equal in content.
          held: JSON.parse(JSON.stringify(live ?? null)),
          stored: JSON.parse(JSON.stringify(read)),
        };
      },
    );
    expect(held).toMatchObject({
      setup: (stored as { setup: unknown }).setup,
      status: "active",
      expiresAt: (stored as { expiresAt: number }).expiresAt,
      leaseEnded: false,
      completed: false,
      nextSeq: 1,
    });
    expect(stored).toMatchObject({ status: "active", leaseEnded: false, completed: false, maxSeq: 0 });
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 4 } })).toEqual({
      status: 200,
      body: { previous: 0 },
    });
    expect((await evidence(attempt)).map((c) => c.seq)).toEqual([1]);
  });

  it("a step that fails leaves the storage at its version, with nothing half applied", async () => {
    const attempt = await freshAttempt();
    const outcome = await runInDurableObject<AttemptObject, unknown>(stubOf(attempt), (_instance, state) => {
      const storage = AttemptStorage.of(state.storage);
      const broken = [
        ...MIGRATIONS,
        {
          version: (CURRENT ?? 0) + 1,
          statements: [`ALTER TABLE calls ADD COLUMN note TEXT`, `ALTER TABLE no_such_table ADD COLUMN x TEXT`],
        },
      ];
      let error = "";
      try {
        storage.migrate(broken);
      } catch (thrown) {
        error = thrown instanceof Error ? thrown.message : String(thrown);
      }
      return {
        failed: error.includes("no_such_table"),
        version: storage.schemaVersion(),
        hasNote: tableColumns(state.storage.sql, "calls").includes("note"),
      };
    });
    expect(outcome).toEqual({ failed: true, version: CURRENT, hasNote: false });
  });
});

describe("the attempt object's clock", () => {
  it("reads time from the clock it is given: a clock past the lease ends it", async () => {
    const attempt = await freshAttempt();
    const later = Date.parse(attempt.expires_at) + 1000;
    const clock = { now: () => later, sleep: async () => undefined };
    const seen = await runInDurableObject<AttemptObject, unknown>(stubOf(attempt), (_instance, state) => {
      const object = new AttemptObject(state, env, clock);
      const reply = object.snapshot();
      return reply.kind === "ok" ? { status: reply.snapshot.status, lease_ended: reply.snapshot.lease_ended } : reply;
    });
    expect(seen).toEqual({ status: "expired", lease_ended: true });
  });
});
