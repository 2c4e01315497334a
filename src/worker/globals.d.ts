// The Workers types' global Env is the Worker's own Env (src/worker/platform/env.ts, the one declaration of
// the bindings in wrangler.toml), so `env` from cloudflare:test and cloudflare:workers is typed the
// same as the Worker's. The main module types `exports` in workerd tests.
declare namespace Cloudflare {
  type WorkerBindings = import("./platform/env.js").Env;
  interface Env extends WorkerBindings {}
  interface GlobalProps {
    mainModule: typeof import("./index.js");
    durableNamespaces: "AttemptObject";
  }
}
