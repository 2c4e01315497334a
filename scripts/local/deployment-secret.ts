/**
 * The local deployment secret (TOOLPROOF_SECRET), which seals model connections' API keys.
 * Made once per state directory and kept there beside the database whose keys it opens: a new
 * secret on every start would make every stored key unreadable. The file is readable by its
 * owner only (0600) and holds the secret in the .env format, so `npm run dev` hands the very same
 * file to wrangler (`--env-file`).
 */
import { randomBytes } from "node:crypto";
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

export const SECRET_BINDING = "TOOLPROOF_SECRET";

export function deploymentSecretFile(stateDir: string): string {
  return path.join(stateDir, "deployment-secret.env");
}

/** The state directory's secret, made on first use; a damaged file is an error, never silently replaced. */
export async function ensureDeploymentSecret(
  stateDir: string,
): Promise<{ secret: string; file: string; created: boolean }> {
  const file = deploymentSecretFile(stateDir);
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  if (text !== undefined) {
    const secret = new RegExp(`^${SECRET_BINDING}=([A-Za-z0-9_-]{43,})\\s*$`, "m").exec(text)?.[1];
    if (!secret) {
      throw new Error(
        `${file} does not hold ${SECRET_BINDING}=<32 or more random bytes as base64url>; restore it (connections stored under it cannot be opened without it), or delete it to make a new one and PUT every connection again with its api_key`,
      );
    }
    // Tighten a file whose mode was loosened (a copy, an editor).
    await chmod(file, 0o600);
    return { secret, file, created: false };
  }
  const secret = randomBytes(32).toString("base64url");
  const note =
    "# toolproof's local deployment secret: it seals the API keys of model connections in this state directory. Keep it with the database; never share it.\n";
  // "wx": if two starts race on a fresh directory, the second fails here instead of overwriting the first's secret.
  await writeFile(file, `${note}${SECRET_BINDING}=${secret}\n`, { mode: 0o600, flag: "wx" }).catch(
    async (error: unknown) => {
      if (!isExisting(error)) throw error;
    },
  );
  const written = await ensureDeploymentSecret(stateDir);
  return { ...written, created: written.secret === secret };
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}

function isExisting(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "EEXIST";
}
