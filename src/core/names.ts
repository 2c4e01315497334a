/**
 * Names of stored documents a client picks (policies, suites, connections): one rule, so a name
 * that a suite refers to is always one that its own route accepts.
 */
export const RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const RESOURCE_NAME_RULE = "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit";
