/** The two queues' message bodies, here so that env.ts can type its queue bindings without importing their producers. */

export interface EvalMessage {
  run_id: string;
  seq: number;
}

export interface CallbackMessage {
  kind: "callback";
  run_id: string;
  tenant_id: string;
}
