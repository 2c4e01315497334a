/** @jsxImportSource hono/jsx */
/**
 * Policies pages: the tenant's policies, one policy's versions (newest first) with its latest
 * document, and the line diff between two versions. Read through the same repository as
 * /api/policies (ManageTools).
 */
import { Hono } from "hono";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import {
  type PolicySummary,
  type StoredPolicyVersion,
  findPolicyVersion,
  listPolicies,
  listPolicyVersions,
} from "../../adapters/d1/policies.js";
import type { AppEnv } from "../platform/env.js";
import { pageCursor, NAME_CURSOR } from "../http/pagination.js";
import { policyName } from "../policies/stored-policy.js";
import { CompareForm, JsonBlock, TableWrap } from "./components.js";
import { DiffView, jsonLineDiff } from "./diff-view.js";
import { seg, when } from "./format.js";
import { type PageResult, notFoundPage, page, pathParam, positiveIntQuery } from "./page.js";

const POLICIES_PER_PAGE = 50;
const VERSIONS_SHOWN = 50;
const policies = { section: "policies", permission: "AIManager:ManageTools" } as const;
const backToPolicies = { href: "/policies", label: "Back to the policies" };

export const policyPages = new Hono<AppEnv>();

policyPages.get(
  "/",
  page(policies, async (c, viewer) => {
    const after = pageCursor(c, NAME_CURSOR);
    const listed = await listPolicies(c.var.db, viewer.principal.tenantId, { limit: POLICIES_PER_PAGE, after });
    return policiesListPage(
      listed.items,
      listed.next === undefined ? undefined : `/policies?cursor=${seg(encodeCursor([listed.next]))}`,
    );
  }),
);

policyPages.get(
  "/:name",
  page(policies, async (c, viewer) => {
    const name = policyName(pathParam(c, "name"));
    const tenantId = viewer.principal.tenantId;
    const latest = await findPolicyVersion(c.var.db, tenantId, name);
    if (!latest) return notFoundPage("policy", backToPolicies);
    const versions = await listPolicyVersions(c.var.db, tenantId, name, { limit: VERSIONS_SHOWN });
    return policyPage(latest, versions.items);
  }),
);

policyPages.get(
  "/:name/versions/:version",
  page(policies, async (c, viewer) => {
    const name = policyName(pathParam(c, "name"));
    const raw = pathParam(c, "version");
    const stored = /^[1-9][0-9]{0,8}$/.test(raw)
      ? await findPolicyVersion(c.var.db, viewer.principal.tenantId, name, Number(raw))
      : undefined;
    if (!stored) return notFoundPage("policy version", { href: policyHref(name), label: `Back to ${name}` });
    return policyVersionPage(stored);
  }),
);

policyPages.get(
  "/:name/diff",
  page(policies, async (c, viewer) => {
    const name = policyName(pathParam(c, "name"));
    const back = { href: policyHref(name), label: `Back to ${name}` };
    const from = positiveIntQuery(c, "from");
    const to = positiveIntQuery(c, "to");
    if (from === undefined || to === undefined)
      return { ...notFoundPage("version pair", back), status: 400, title: "Choose two versions" };
    const tenantId = viewer.principal.tenantId;
    const [a, b] = await Promise.all([
      findPolicyVersion(c.var.db, tenantId, name, from),
      findPolicyVersion(c.var.db, tenantId, name, to),
    ]);
    if (!a || !b) return notFoundPage("policy version", back);
    return policyDiffPage(a, b);
  }),
);

const policyHref = (name: string) => `/policies/${seg(name)}`;
const versionHref = (name: string, version: number) => `/policies/${seg(name)}/versions/${version}`;

// ---- views (pure: data in, markup out) ----

function policiesListPage(items: PolicySummary[], next: string | undefined): PageResult {
  return {
    title: "Policies",
    body: (
      <>
        <h1>Policies</h1>
        <p class="lede">Reviewed tool policies. Every change is kept as a new version.</p>
        {items.length === 0 ? (
          <p>No policies yet. Store one with PUT /api/policies/:name.</p>
        ) : (
          <TableWrap>
            <table class="data">
              <caption>Policies by name</caption>
              <thead>
                <tr>
                  <th scope="col">Policy</th>
                  <th scope="col" class="num">
                    Latest version
                  </th>
                  <th scope="col">Last changed</th>
                  <th scope="col">First stored</th>
                </tr>
              </thead>
              <tbody>
                {items.map((p) => (
                  <tr>
                    <td>
                      <a href={policyHref(p.name)}>{p.name}</a>
                    </td>
                    <td class="num">{p.latest_version}</td>
                    <td>{when(p.updated_at)}</td>
                    <td>{when(p.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {next ? <a href={next}>More policies</a> : null}
      </>
    ),
  };
}

function policyPage(latest: StoredPolicyVersion, versions: StoredPolicyVersion[]): PageResult {
  return {
    title: latest.name,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/policies">Policies</a> / {latest.name}
        </p>
        <h1>{latest.name}</h1>
        <p class="lede">{`Version ${latest.version}, the latest, stored ${when(latest.created_at)}.`}</p>
        <h2>Versions</h2>
        <TableWrap>
          <table class="data">
            <caption>{`Versions of ${latest.name}, newest first`}</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Stored</th>
                <th scope="col">By key</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v, i) => {
                const previous = versions[i + 1];
                return (
                  <tr>
                    <td>
                      <a href={versionHref(v.name, v.version)}>{`Version ${v.version}`}</a>
                    </td>
                    <td>{when(v.created_at)}</td>
                    <td>
                      <code>{v.created_by}</code>
                    </td>
                    <td>
                      {previous ? (
                        <a
                          href={`${policyHref(v.name)}/diff?from=${previous.version}&to=${v.version}`}
                        >{`Diff with version ${previous.version}`}</a>
                      ) : (
                        "First version"
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
        {versions.length > 1 ? (
          <CompareForm
            action={`${policyHref(latest.name)}/diff`}
            idPrefix="policy"
            numbers={versions.map((v) => v.version)}
            noun="version"
          />
        ) : null}
        <h2>Latest document</h2>
        <JsonBlock value={latest.document} label={`Policy ${latest.name}, version ${latest.version}`} />
      </>
    ),
  };
}

function policyVersionPage(stored: StoredPolicyVersion): PageResult {
  return {
    title: `${stored.name} · version ${stored.version}`,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/policies">Policies</a> / <a href={policyHref(stored.name)}>{stored.name}</a> /{" "}
          {`version ${stored.version}`}
        </p>
        <h1>{`${stored.name}, version ${stored.version}`}</h1>
        <dl class="facts">
          <dt>Stored</dt>
          <dd>{when(stored.created_at)}</dd>
          <dt>By key</dt>
          <dd>
            <code>{stored.created_by}</code>
          </dd>
        </dl>
        <JsonBlock value={stored.document} label={`Policy ${stored.name}, version ${stored.version}`} />
      </>
    ),
  };
}

function policyDiffPage(from: StoredPolicyVersion, to: StoredPolicyVersion): PageResult {
  return {
    title: `${from.name} · version ${from.version} → ${to.version}`,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/policies">Policies</a> / <a href={policyHref(from.name)}>{from.name}</a>
        </p>
        <h1>{`${from.name}: version ${from.version} → version ${to.version}`}</h1>
        <DiffView
          lines={jsonLineDiff(from.document, to.document)}
          fromLabel={`version ${from.version}`}
          toLabel={`version ${to.version}`}
        />
      </>
    ),
  };
}
