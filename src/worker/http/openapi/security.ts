/** The document's security schemes, and which of them an operation's Access takes. */
import type { ErrorCode } from "../errors.js";
import type { Access } from "./operation.js";

export const SECURITY_SCHEMES = {
  ApiKey: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (tp_...) as Authorization: Bearer <key>. Every /api route except the attempt routes and webhook deliveries takes one; each route needs the permission it names (AIManager:Admin may do everything).",
  },
  AttemptToken: {
    type: "http",
    scheme: "bearer",
    description:
      "An attempt's capability token (from POST /api/simulations, one per attempt) as Authorization: Bearer <token>. It opens only its own attempt's routes under /api/attempts/{id}.",
  },
  StandardWebhookSignature: {
    type: "apiKey",
    in: "header",
    name: "webhook-signature",
    description:
      "A Standard Webhooks signature over webhook-id, webhook-timestamp and the raw body, with the webhook's secret (docs/webhooks.md).",
  },
  GithubSignature: {
    type: "apiKey",
    in: "header",
    name: "X-Hub-Signature-256",
    description: "GitHub's HMAC-SHA256 signature of the raw body with the webhook's secret (docs/webhooks.md).",
  },
  BootstrapToken: {
    type: "http",
    scheme: "bearer",
    description:
      "The deployment's TOOLPROOF_BOOTSTRAP_TOKEN Worker secret as Authorization: Bearer <token>. It opens only POST /api/bootstrap, and only while the deployment holds no API key (README, Deploy).",
  },
} as const;

export function securityOf(access: Access): Array<Record<string, string[]>> {
  switch (access.kind) {
    case "public":
      return [];
    case "api_key":
      return [{ ApiKey: [] }];
    case "attempt_token":
      return access.orApiKey ? [{ AttemptToken: [] }, { ApiKey: [] }] : [{ AttemptToken: [] }];
    case "webhook_signature":
      return [{ StandardWebhookSignature: [] }, { GithubSignature: [] }];
    case "bootstrap_token":
      return [{ BootstrapToken: [] }];
  }
}

/** What a refused credential answers on routes of this access. */
export function accessErrors(access: Access): ErrorCode[] {
  switch (access.kind) {
    case "public":
      return [];
    case "api_key":
      return ["unauthorized", "forbidden"];
    case "attempt_token":
      return access.orApiKey ? ["unauthorized", "token_expired", "forbidden"] : ["unauthorized", "token_expired"];
    case "webhook_signature":
    case "bootstrap_token":
      return ["unauthorized"];
  }
}

export function accessDescription(access: Access): string {
  switch (access.kind) {
    case "public":
      return "Public: no key needed.";
    case "api_key":
      return `Needs an API key with ${access.permission} (or AIManager:Admin).`;
    case "attempt_token":
      return access.orApiKey
        ? `The attempt's token, or an API key of the attempt's tenant with ${access.orApiKey}.`
        : "The attempt's capability token.";
    case "webhook_signature":
      return "No API key: the delivery is authenticated by its signature over the raw body, in the webhook's format.";
    case "bootstrap_token":
      return "No API key: the deployment's TOOLPROOF_BOOTSTRAP_TOKEN secret as a bearer token. A wrong token and a deployment that has keys already get the same 401.";
  }
}
