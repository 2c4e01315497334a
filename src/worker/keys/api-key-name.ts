import { z } from "zod";

/** An API key's name, the same rule for a created key and the bootstrap key. */
export const apiKeyName = z.string().min(1, "expected 1 to 100 characters").max(100, "expected 1 to 100 characters");
