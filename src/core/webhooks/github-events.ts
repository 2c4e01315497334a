/**
 * What a GitHub delivery says about its source, and whether a webhook's event filter takes it.
 *
 * A filter is a list of entries; a delivery is taken when one entry names its event and, when the
 * entry lists them, its action (pull_request: opened, synchronize, ...) is among `actions` and its
 * state (deployment_status: success, failure, ...) is among `states`. An event the filter does not
 * name is ignored: a webhook subscribed to "everything" on GitHub still starts runs only for what
 * its filter says.
 */
import type { JsonValue } from "../json.js";

export interface GithubEventFilter {
  event: string;
  actions?: string[] | undefined;
  states?: string[] | undefined;
}

/** The parts of a delivery a run records as its trigger (strings only, as the run's trigger column holds). */
export interface GithubSource {
  event: string;
  action?: string;
  state?: string;
  commit?: string;
  ref?: string;
  repository?: string;
}

type FilterDecision = { take: true } | { take: false; reason: string };

function field(value: JsonValue | undefined, ...path: string[]): string | undefined {
  let current: JsonValue | undefined = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = current[key];
  }
  return typeof current === "string" ? current : undefined;
}

/** The event, action or state, and the commit and ref, from the payload where GitHub puts them for that event. */
export function githubSource(event: string, payload: JsonValue): GithubSource {
  const commitAndRef = (): { commit?: string | undefined; ref?: string | undefined } => {
    switch (event) {
      case "deployment_status":
      case "deployment":
        return { commit: field(payload, "deployment", "sha"), ref: field(payload, "deployment", "ref") };
      case "pull_request":
        return {
          commit: field(payload, "pull_request", "head", "sha"),
          ref: field(payload, "pull_request", "head", "ref"),
        };
      case "push":
        return { commit: field(payload, "after"), ref: field(payload, "ref") };
      case "workflow_run":
        return {
          commit: field(payload, "workflow_run", "head_sha"),
          ref: field(payload, "workflow_run", "head_branch"),
        };
      default:
        return {};
    }
  };
  const found = {
    action: field(payload, "action"),
    state: event === "deployment_status" ? field(payload, "deployment_status", "state") : undefined,
    ...commitAndRef(),
    repository: field(payload, "repository", "full_name"),
  };
  const source: GithubSource = { event };
  for (const [key, value] of Object.entries(found)) if (value !== undefined) Object.assign(source, { [key]: value });
  return source;
}

export function filterDecision(filter: readonly GithubEventFilter[], source: GithubSource): FilterDecision {
  const entries = filter.filter((entry) => entry.event === source.event);
  if (entries.length === 0) {
    return {
      take: false,
      reason: `the event ${source.event} is not in the webhook's filter (${filter.map((entry) => entry.event).join(", ") || "none"})`,
    };
  }
  const misses: string[] = [];
  for (const entry of entries) {
    if (entry.actions !== undefined && !(source.action !== undefined && entry.actions.includes(source.action))) {
      misses.push(`action ${source.action ?? "(none)"} is not one of ${entry.actions.join(", ")}`);
      continue;
    }
    if (entry.states !== undefined && !(source.state !== undefined && entry.states.includes(source.state))) {
      misses.push(`state ${source.state ?? "(none)"} is not one of ${entry.states.join(", ")}`);
      continue;
    }
    return { take: true };
  }
  return { take: false, reason: `${source.event}: ${misses.join("; ")}` };
}
