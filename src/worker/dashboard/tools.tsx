/** @jsxImportSource hono/jsx */
/**
 * Tools pages: the library's operations with contract hash, latest mock revision and whether it
 * is stale; one tool with each operation's revisions; a revision's definition; the line diff
 * between two revisions. Read through the same D1 repositories as /api/tools (ManageTools).
 */
import { Hono } from "hono";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import {
  type RevisionSummary,
  type StoredRevision,
  type StoredTool,
  getTool,
  latestRevisions,
  listRevisions,
  listTools,
} from "../../adapters/d1/tools.js";
import type { AppEnv, Database } from "../platform/env.js";
import { pageCursor, CREATED_CURSOR } from "../http/pagination.js";
import { revisionIsStale } from "../tools/tool-view.js";
import { CompareForm, JsonBlock, ShortHash, StaleBadge, TableWrap } from "./components.js";
import { DiffView, jsonLineDiff } from "./diff-view.js";
import { seg, when } from "./format.js";
import { type PageResult, notFoundPage, page, pathParam, positiveIntQuery } from "./page.js";

const TOOLS_PER_PAGE = 50;
const REVISIONS_SHOWN = 50;
const tools = { section: "tools", permission: "AIManager:ManageTools" } as const;
const backToTools = { href: "/tools", label: "Back to the tools" };

export const toolPages = new Hono<AppEnv>();

toolPages.get(
  "/",
  page(tools, async (c, viewer) => {
    const tenantId = viewer.principal.tenantId;
    const after = pageCursor(c, CREATED_CURSOR);
    const listed = await listTools(c.var.db, tenantId, { limit: TOOLS_PER_PAGE, after });
    const latest = await Promise.all(listed.items.map((tool) => latestRevisions(c.var.db, tenantId, tool.id)));
    const next = listed.next
      ? `/tools?cursor=${seg(encodeCursor([listed.next.created_at, listed.next.id]))}`
      : undefined;
    return toolsListPage(
      listed.items.map((tool, i) => ({ tool, latest: latest[i] ?? new Map() })),
      next,
    );
  }),
);

toolPages.get(
  "/:id",
  page(tools, async (c, viewer) => {
    const tenantId = viewer.principal.tenantId;
    const tool = await getTool(c.var.db, tenantId, pathParam(c, "id"));
    if (!tool) return notFoundPage("tool", backToTools);
    const revisions = await Promise.all(
      tool.operations.map((op) =>
        listRevisions(c.var.db, tenantId, tool.id, op.operation_id, { limit: REVISIONS_SHOWN }),
      ),
    );
    return toolPage(
      tool,
      revisions.map((r) => r.items),
    );
  }),
);

toolPages.get(
  "/:id/operations/:operation/revisions/:revision",
  page(tools, async (c, viewer) => {
    const found = await operationOf(c.var.db, viewer.principal.tenantId, pathParam(c, "id"), pathParam(c, "operation"));
    if (!found) return notFoundPage("operation", backToTools);
    const number = /^[1-9][0-9]{0,8}$/.test(pathParam(c, "revision")) ? Number(pathParam(c, "revision")) : undefined;
    const revision =
      number === undefined
        ? undefined
        : await revisionOf(c.var.db, viewer.principal.tenantId, found.tool.id, found.operationId, number);
    if (!revision)
      return notFoundPage("revision", { href: toolHref(found.tool.id), label: `Back to ${found.tool.name}` });
    return revisionPage(found.tool, found.contractHash, revision);
  }),
);

toolPages.get(
  "/:id/operations/:operation/diff",
  page(tools, async (c, viewer) => {
    const tenantId = viewer.principal.tenantId;
    const found = await operationOf(c.var.db, tenantId, pathParam(c, "id"), pathParam(c, "operation"));
    if (!found) return notFoundPage("operation", backToTools);
    const from = positiveIntQuery(c, "from");
    const to = positiveIntQuery(c, "to");
    const back = { href: toolHref(found.tool.id), label: `Back to ${found.tool.name}` };
    if (from === undefined || to === undefined)
      return { ...notFoundPage("revision pair", back), status: 400, title: "Choose two revisions" };
    const [a, b] = await Promise.all([
      revisionOf(c.var.db, tenantId, found.tool.id, found.operationId, from),
      revisionOf(c.var.db, tenantId, found.tool.id, found.operationId, to),
    ]);
    if (!a || !b) return notFoundPage("revision", back);
    return revisionDiffPage(found.tool, found.operationId, found.contractHash, a, b);
  }),
);

async function operationOf(
  db: Database,
  tenantId: string,
  toolId: string,
  operationId: string,
): Promise<{ tool: StoredTool; operationId: string; contractHash: string } | undefined> {
  const tool = await getTool(db, tenantId, toolId);
  const operation = tool?.operations.find((op) => op.operation_id === operationId);
  return tool && operation ? { tool, operationId, contractHash: operation.contract_hash } : undefined;
}

/** One revision, read as the newest one below `revision + 1` (the history route's own query). */
async function revisionOf(
  db: Database,
  tenantId: string,
  toolId: string,
  operationId: string,
  revision: number,
): Promise<StoredRevision | undefined> {
  const listed = await listRevisions(db, tenantId, toolId, operationId, { limit: 1, before: revision + 1 });
  const found = listed.items[0];
  return found?.revision === revision ? found : undefined;
}

const toolHref = (toolId: string) => `/tools/${seg(toolId)}`;
const revisionHref = (toolId: string, operationId: string, revision: number) =>
  `/tools/${seg(toolId)}/operations/${seg(operationId)}/revisions/${revision}`;

// ---- views (pure: data in, markup out) ----

function toolsListPage(
  rows: Array<{ tool: StoredTool; latest: Map<string, RevisionSummary> }>,
  next: string | undefined,
): PageResult {
  const staleCount = rows.reduce(
    (n, { tool, latest }) =>
      n + tool.operations.filter((op) => revisionIsStale(latest.get(op.operation_id), op) === true).length,
    0,
  );
  return {
    title: "Tools",
    body: (
      <>
        <h1>Tools</h1>
        <p class="lede">
          Every operation of the library with its contract hash and its latest mock revision. A revision is stale when
          the contract changed after it was saved.
        </p>
        {rows.length === 0 ? (
          <p>No tools yet. Register one with POST /api/tools.</p>
        ) : (
          <>
            <p>
              {staleCount === 0
                ? "No operation has a stale mock."
                : `${staleCount} operation${staleCount === 1 ? " has a stale mock" : "s have stale mocks"}.`}
            </p>
            <TableWrap>
              <table class="data">
                <caption>Operations by tool</caption>
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Operation</th>
                    <th scope="col">Mock</th>
                    <th scope="col">Latest revision</th>
                    <th scope="col">Contract hash</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.flatMap(({ tool, latest }) =>
                    tool.operations.map((op, i) => {
                      const revision = latest.get(op.operation_id);
                      return (
                        <tr>
                          <td>
                            {i === 0 ? (
                              <a href={toolHref(tool.id)}>{tool.name}</a>
                            ) : (
                              <span class="hint">{tool.name}</span>
                            )}
                          </td>
                          <td>
                            <code>{op.operation_id}</code>
                          </td>
                          <td>
                            <StaleBadge stale={revisionIsStale(revision, op)} />
                          </td>
                          <td>
                            {revision ? (
                              <a
                                href={revisionHref(tool.id, op.operation_id, revision.revision)}
                              >{`Revision ${revision.revision}`}</a>
                            ) : (
                              "None"
                            )}
                          </td>
                          <td>
                            <ShortHash hash={op.contract_hash} />
                          </td>
                        </tr>
                      );
                    }),
                  )}
                </tbody>
              </table>
            </TableWrap>
            {next ? <a href={next}>Older tools</a> : null}
          </>
        )}
      </>
    ),
  };
}

function toolPage(tool: StoredTool, revisions: StoredRevision[][]): PageResult {
  return {
    title: tool.name,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/tools">Tools</a> / {tool.name}
        </p>
        <h1>{tool.name}</h1>
        <p class="lede">{tool.description}</p>
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{tool.id}</code>
          </dd>
          <dt>Kind</dt>
          <dd>{tool.kind}</dd>
          <dt>Changed</dt>
          <dd>{when(tool.updated_at)}</dd>
        </dl>
        {tool.operations.map((op, i) => {
          const history = revisions[i] ?? [];
          const latest = history[0];
          const headingId = `op-${op.operation_id}`;
          return (
            <section aria-labelledby={headingId}>
              <h2 id={headingId}>
                <code>{op.operation_id}</code> <StaleBadge stale={revisionIsStale(latest, op)} />
              </h2>
              <p>{op.description}</p>
              <p>
                Contract hash <ShortHash hash={op.contract_hash} />
              </p>
              {history.length === 0 ? (
                <p>No mock revision saved yet.</p>
              ) : (
                <>
                  <TableWrap>
                    <table class="data">
                      <caption>{`Revisions of ${op.operation_id}, newest first`}</caption>
                      <thead>
                        <tr>
                          <th scope="col">Revision</th>
                          <th scope="col">Saved</th>
                          <th scope="col">Checked against</th>
                          <th scope="col">Mock</th>
                        </tr>
                      </thead>
                      <tbody>
                        {history.map((rev) => (
                          <tr>
                            <td>
                              <a
                                href={revisionHref(tool.id, op.operation_id, rev.revision)}
                              >{`Revision ${rev.revision}`}</a>
                            </td>
                            <td>{when(rev.created_at)}</td>
                            <td>
                              <ShortHash hash={rev.contract_hash} />
                            </td>
                            <td>
                              <StaleBadge stale={revisionIsStale(rev, op)} />
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </TableWrap>
                  {history.length > 1 ? (
                    <CompareForm
                      action={`/tools/${seg(tool.id)}/operations/${seg(op.operation_id)}/diff`}
                      idPrefix={op.operation_id}
                      numbers={history.map((r) => r.revision)}
                      noun="revision"
                    />
                  ) : null}
                </>
              )}
            </section>
          );
        })}
      </>
    ),
  };
}

function revisionPage(tool: StoredTool, currentHash: string, revision: StoredRevision): PageResult {
  const title = `${tool.name} · ${revision.operation_id} · revision ${revision.revision}`;
  return {
    title,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/tools">Tools</a> / <a href={toolHref(tool.id)}>{tool.name}</a> / {revision.operation_id}
        </p>
        <h1>
          {`${revision.operation_id}, revision ${revision.revision}`}{" "}
          <StaleBadge stale={revisionIsStale(revision, { contract_hash: currentHash })} />
        </h1>
        <dl class="facts">
          <dt>Saved</dt>
          <dd>{when(revision.created_at)}</dd>
          <dt>Saved by key</dt>
          <dd>
            <code>{revision.created_by}</code>
          </dd>
          <dt>Checked against</dt>
          <dd>
            <ShortHash hash={revision.contract_hash} />
          </dd>
          <dt>Current contract</dt>
          <dd>
            <ShortHash hash={currentHash} />
          </dd>
        </dl>
        <h2>Definition</h2>
        <JsonBlock value={revision.definition} label={`Definition of revision ${revision.revision}`} />
      </>
    ),
  };
}

function revisionDiffPage(
  tool: StoredTool,
  operationId: string,
  currentHash: string,
  from: StoredRevision,
  to: StoredRevision,
): PageResult {
  return {
    title: `${tool.name} · ${operationId} · revision ${from.revision} → ${to.revision}`,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/tools">Tools</a> / <a href={toolHref(tool.id)}>{tool.name}</a> / {operationId}
        </p>
        <h1>{`${operationId}: revision ${from.revision} → revision ${to.revision}`}</h1>
        <ul>
          {[from, to].map((rev) => (
            <li>
              <a href={revisionHref(tool.id, operationId, rev.revision)}>{`Revision ${rev.revision}`}</a>, saved{" "}
              {when(rev.created_at)} <StaleBadge stale={revisionIsStale(rev, { contract_hash: currentHash })} />
            </li>
          ))}
        </ul>
        <DiffView
          lines={jsonLineDiff(from.definition, to.definition)}
          fromLabel={`revision ${from.revision}`}
          toLabel={`revision ${to.revision}`}
        />
      </>
    ),
  };
}
