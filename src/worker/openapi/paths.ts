/**
 * Every documented operation. A new route is documented by adding its OperationDoc to the file of
 * its resource (or a new file listed here); test/docs/openapi.test.ts fails while any route of the
 * app is missing from the document.
 */
import type { OperationDoc } from "../http/openapi/operation.js";
import { agentSecretOperations } from "../agent-secrets/openapi.js";
import { documentOperations } from "../suites/openapi.js";
import { integrationOperations } from "../webhooks/openapi.js";
import { keyOperations } from "../keys/openapi.js";
import { realToolOperations } from "../tools/upstream-openapi.js";
import { runOperations } from "../runs/openapi.js";
import { bootstrapOperations, serviceOperations } from "../keys/bootstrap-openapi.js";
import { simulationOperations } from "../attempts/openapi.js";
import { toolOperations } from "../tools/openapi.js";
import { datasetOperations } from "../datasets/openapi.js";
import { turnOperations } from "../runs/external/turn-openapi.js";

export const ALL_OPERATIONS: readonly OperationDoc[] = [
  ...serviceOperations,
  ...toolOperations,
  ...simulationOperations,
  ...documentOperations,
  ...runOperations,
  ...integrationOperations,
  ...realToolOperations,
  ...agentSecretOperations,
  ...bootstrapOperations,
  ...keyOperations,
  ...datasetOperations,
  ...turnOperations,
];
