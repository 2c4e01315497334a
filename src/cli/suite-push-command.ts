/**
 * `toolproof suite push FILE`: saves a suite kept as data next to the agent's code (YAML or JSON)
 * with PUT /api/suites/:name, so a changed scenario is a reviewed diff and CI can push on every
 * build (an unchanged file adds no version). Exit 0 saved, 1 refused (every problem with its
 * field), 2 a file, flag or connection that cannot be used.
 */
import path from "node:path";
import { isRecord } from "../core/policy/fields.js";
import { RESOURCE_NAME } from "../core/names.js";
import { displayName, loadDocument } from "./documents.js";
import { parseFlagsAndArguments } from "./flags.js";
import { SUITE_PUSH_HELP } from "./help.js";
import { EXIT_FAILED, EXIT_OK, UnusableInput, type CliIo } from "./io.js";
import { renderUnusable } from "./render.js";
import { request, SERVICE_FLAGS, serviceOf, ServiceError } from "./service.js";

const COMMAND = "suite push";
/** Statuses that mean "the service read the suite and refused it", as opposed to a key or address problem. */
const REFUSALS = new Set([400, 404, 409, 413, 415, 422]);

export async function suitePushCommand(args: string[], io: CliIo): Promise<number> {
  const { values: flags, positionals } = parseFlagsAndArguments(
    args,
    { ...SERVICE_FLAGS, name: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    COMMAND,
  );
  if (flags.help) {
    io.out(SUITE_PUSH_HELP);
    return EXIT_OK;
  }
  if (positionals.length !== 1)
    throw new UnusableInput(
      "command line",
      `${positionals.length === 0 ? "missing the suite file" : `expected one suite file, got ${positionals.length}`}: toolproof suite push FILE; run "toolproof ${COMMAND} --help" for the options`,
    );
  const file = positionals[0] ?? "";
  const name = flags.name ?? defaultName(file);
  const service = serviceOf(flags, io.env, COMMAND);
  const suite = await loadDocument(io, file, "suite");

  let saved: unknown;
  try {
    saved = await request(service, `/api/suites/${encodeURIComponent(name)}`, { method: "PUT", body: suite });
  } catch (error) {
    if (!(error instanceof ServiceError) || !REFUSALS.has(error.status)) throw error;
    const problems = error.problems;
    const refused = `suite ${name} refused (${error.status} ${error.code ?? "error"})`;
    // The API's message repeats the first problem; listed one by one, each with its field, it is not needed.
    const message =
      problems.length > 0
        ? `${refused}, ${problems.length === 1 ? "1 problem" : `${problems.length} problems`}:`
        : `${refused}: ${error.message.replace(/^PUT \S+ answered \d+ \S+: /, "")}`;
    io.err(renderUnusable(new UnusableInput(displayName(file), message, problems)));
    if (flags.json)
      io.out(
        `${JSON.stringify({ error: { status: error.status, code: error.code, message: error.message, problems } }, null, 2)}\n`,
      );
    return EXIT_FAILED;
  }
  if (!isRecord(saved) || typeof saved.version !== "number")
    throw new ServiceError(
      `PUT /api/suites/${name}`,
      200,
      "the service did not answer a saved suite; is --url toolproof's address?",
    );
  io.out(flags.json ? `${JSON.stringify(saved, null, 2)}\n` : renderSaved(saved, displayName(file), name));
  return EXIT_OK;
}

/** `evals/invoicedesk.yaml` → `invoicedesk`; a name the API would refuse is a usage error here. */
function defaultName(file: string): string {
  if (file === "-") throw new UnusableInput("command line", "a suite read from stdin needs --name <name>");
  const name = path.basename(file).replace(/\.(ya?ml|json)$/i, "");
  if (!RESOURCE_NAME.test(name))
    throw new UnusableInput(
      "command line",
      `the file name ${JSON.stringify(path.basename(file))} is not a suite name (letters, digits, '_', '.', '-'); give one with --name <name>`,
    );
  return name;
}

function renderSaved(saved: Record<string, unknown>, file: string, name: string): string {
  const version = String(saved.version);
  const lines = [
    `toolproof suite push: ${file} → suite ${name}`,
    saved.changed === false
      ? `  unchanged: version ${version} is already this suite (no version added)`
      : `  saved version ${version}`,
  ];
  const warnings = Array.isArray(saved.warnings) ? saved.warnings.filter(isRecord) : [];
  if (warnings.length > 0)
    lines.push("  warnings:", ...warnings.map((warning) => `    ${String(warning.path)}: ${String(warning.message)}`));
  return `${lines.join("\n")}\n`;
}
