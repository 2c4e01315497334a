/** Sizes of the local upstream's answers that tests compute with, shared by the server (Node) and the tests (workerd). */

/** /big answers a JSON string of this many quotes. */
export const BIG_ANSWER_QUOTES = 500_000;
