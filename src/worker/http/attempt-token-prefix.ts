/** Attempt tokens start with this, so the auth middleware tells them from API keys without a lookup. */
export const ATTEMPT_TOKEN_PREFIX = "tpa_";
