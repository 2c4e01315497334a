/**
 * The one model server every test run shares (started by global-setup.ts), for test files in
 * either project: Node tests and tests inside workerd read its address the same way, through
 * vitest's inject.
 */
import { inject } from "vitest";
import { modelServerControl, type ModelServerControl } from "./control.js";

export { uniqueModel } from "./control.js";

export function modelServer(): ModelServerControl {
  return modelServerControl(inject("modelServerUrl"));
}
