/**
 * Why a render stopped. A plain class (not an Error) because it is control flow on the call path
 * and a stack trace would only cost time; executeCall turns it into an outcome.
 */
import type { Problem } from "../json.js";
import type { HarnessErrorKind } from "./types.js";

export class RenderFailure {
  constructor(
    readonly kind: "tool_input_error" | HarnessErrorKind,
    readonly message: string,
    readonly details: Problem[],
  ) {}
}
