/** @jsxImportSource hono/jsx */
/**
 * Datasets pages: the tenant's datasets, one dataset's versions (newest first) with the
 * collections of its latest, and one version's facts and collections. Read through the same
 * repository and store as /api/datasets (ManageTools); the content itself stays in R2 and is
 * read over the API (GET .../content), never pasted into a page: it may be 25 MB.
 */
import { Hono } from "hono";
import {
  type DatasetSummary,
  type DatasetVersion,
  findDatasetVersion,
  listDatasets,
  listDatasetVersions,
} from "../../adapters/d1/datasets.js";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import type { DatasetCollection } from "../../core/datasets/summary.js";
import { datasetSummary } from "../datasets/store.js";
import { documentName } from "../http/document-body.js";
import { pageCursor, NAME_CURSOR } from "../http/pagination.js";
import type { AppEnv } from "../platform/env.js";
import { ShortHash, TableWrap } from "./components.js";
import { seg, when } from "./format.js";
import { type PageResult, notFoundPage, page, pathParam } from "./page.js";

const DATASETS_PER_PAGE = 50;
const VERSIONS_SHOWN = 50;
const datasets = { section: "datasets", permission: "AIManager:ManageTools" } as const;
const backToDatasets = { href: "/datasets", label: "Back to the datasets" };

export const datasetPages = new Hono<AppEnv>();

datasetPages.get(
  "/",
  page(datasets, async (c, viewer) => {
    const after = pageCursor(c, NAME_CURSOR);
    const listed = await listDatasets(c.var.db, viewer.principal.tenantId, { limit: DATASETS_PER_PAGE, after });
    return datasetsListPage(
      listed.items,
      listed.next === undefined ? undefined : `/datasets?cursor=${seg(encodeCursor([listed.next]))}`,
    );
  }),
);

datasetPages.get(
  "/:name",
  page(datasets, async (c, viewer) => {
    const name = documentName(pathParam(c, "name"));
    const tenantId = viewer.principal.tenantId;
    const versions = await listDatasetVersions(c.var.db, tenantId, name, { limit: VERSIONS_SHOWN });
    const latest = versions.items[0];
    if (!latest) return notFoundPage("dataset", backToDatasets);
    return datasetPage(versions.items, await datasetSummary(c.env.DATASETS, tenantId, latest.content_hash));
  }),
);

datasetPages.get(
  "/:name/versions/:version",
  page(datasets, async (c, viewer) => {
    const name = documentName(pathParam(c, "name"));
    const raw = pathParam(c, "version");
    const tenantId = viewer.principal.tenantId;
    const stored = /^[1-9][0-9]{0,8}$/.test(raw)
      ? await findDatasetVersion(c.var.db, tenantId, name, Number(raw))
      : undefined;
    if (!stored) return notFoundPage("dataset version", { href: datasetHref(name), label: `Back to ${name}` });
    return datasetVersionPage(stored, await datasetSummary(c.env.DATASETS, tenantId, stored.content_hash));
  }),
);

const datasetHref = (name: string) => `/datasets/${seg(name)}`;
const versionHref = (name: string, version: number) => `/datasets/${seg(name)}/versions/${version}`;

// ---- views (pure: data in, markup out) ----

/** Bytes as people read them: 812 B, 2.3 MB (decimal units, as R2 and D1 state their limits). */
function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function datasetsListPage(items: DatasetSummary[], next: string | undefined): PageResult {
  return {
    title: "Datasets",
    body: (
      <>
        <h1>Datasets</h1>
        <p class="lede">
          JSON data that tools start from. Every change is kept as a new version; none is ever changed.
        </p>
        {items.length === 0 ? (
          <p>No datasets yet. Store one with POST /api/datasets/:name/versions.</p>
        ) : (
          <TableWrap>
            <table class="data">
              <caption>Datasets by name</caption>
              <thead>
                <tr>
                  <th scope="col">Dataset</th>
                  <th scope="col" class="num">
                    Latest version
                  </th>
                  <th scope="col" class="num">
                    Size
                  </th>
                  <th scope="col">Content hash</th>
                  <th scope="col">Last changed</th>
                  <th scope="col">First stored</th>
                </tr>
              </thead>
              <tbody>
                {items.map((d) => (
                  <tr>
                    <td>
                      <a href={datasetHref(d.name)}>{d.name}</a>
                    </td>
                    <td class="num">{d.latest.version}</td>
                    <td class="num">{size(d.latest.bytes)}</td>
                    <td>
                      <ShortHash hash={d.latest.content_hash} />
                    </td>
                    <td>{when(d.latest.created_at)}</td>
                    <td>{when(d.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        {next ? <a href={next}>More datasets</a> : null}
      </>
    ),
  };
}

function CollectionsTable(props: { caption: string; collections: DatasetCollection[] }) {
  if (props.collections.length === 0)
    return <p>No collections: the document has no object or array at its top level.</p>;
  return (
    <TableWrap>
      <table class="data">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Collection</th>
            <th scope="col">Kind</th>
            <th scope="col" class="num">
              Records
            </th>
          </tr>
        </thead>
        <tbody>
          {props.collections.map((collection) => (
            <tr>
              <td>
                <code>{collection.name}</code>
              </td>
              <td>{collection.kind === "object" ? "object (records by key)" : "array (records in order)"}</td>
              <td class="num">{collection.records}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** `versions` newest first (never empty); `collections` are the latest version's. */
function datasetPage(versions: DatasetVersion[], collections: DatasetCollection[]): PageResult {
  // SAFETY: the loader answers 404 before calling this with no version.
  const latest = versions[0] as DatasetVersion;
  return {
    title: latest.name,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/datasets">Datasets</a> / {latest.name}
        </p>
        <h1>{latest.name}</h1>
        <p class="lede">{`Version ${latest.version}, the latest, stored ${when(latest.created_at)}: ${size(latest.bytes)}.`}</p>
        <h2>Collections</h2>
        <CollectionsTable
          caption={`Collections of ${latest.name} version ${latest.version}`}
          collections={collections}
        />
        <h2>Versions</h2>
        <TableWrap>
          <table class="data">
            <caption>{`Versions of ${latest.name}, newest first`}</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Stored</th>
                <th scope="col">By key</th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col">Content hash</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr>
                  <td>
                    <a href={versionHref(v.name, v.version)}>{`Version ${v.version}`}</a>
                  </td>
                  <td>{when(v.created_at)}</td>
                  <td>
                    <code>{v.created_by}</code>
                  </td>
                  <td class="num">{size(v.bytes)}</td>
                  <td>
                    <ShortHash hash={v.content_hash} />
                  </td>
                  <td>{v.description ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </>
    ),
  };
}

function datasetVersionPage(stored: DatasetVersion, collections: DatasetCollection[]): PageResult {
  const api = `/api/datasets/${seg(stored.name)}/versions/${stored.version}`;
  return {
    title: `${stored.name} · version ${stored.version}`,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/datasets">Datasets</a> / <a href={datasetHref(stored.name)}>{stored.name}</a> /{" "}
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
          <dt>Size</dt>
          <dd>{`${size(stored.bytes)} (${stored.bytes} bytes)`}</dd>
          <dt>Content hash</dt>
          <dd>
            <code>{stored.content_hash}</code>
          </dd>
          <dt>Description</dt>
          <dd>{stored.description ?? "—"}</dd>
        </dl>
        <h2>Collections</h2>
        <CollectionsTable
          caption={`Collections of ${stored.name} version ${stored.version}`}
          collections={collections}
        />
        <p>
          The content is read with an API key: <code>{`GET ${api}/content`}</code>, or one record with{" "}
          <code>{`GET ${api}/record?pointer=/<collection>/<key>`}</code>.
        </p>
      </>
    ),
  };
}
