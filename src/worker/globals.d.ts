// The Worker's bindings (see wrangler.toml) and main module, declared once for the Workers types:
// `env` and `exports` are then typed the same in the Worker and in workerd tests.
declare namespace Cloudflare {
  interface Env {
    DB: D1Database;
    ATTEMPTS: DurableObjectNamespace<import("./attempt-object.js").AttemptObject>;
    TOOLPROOF_ENV?: string;
  }
  interface GlobalProps {
    mainModule: typeof import("./index.js");
    durableNamespaces: "AttemptObject";
  }
}
