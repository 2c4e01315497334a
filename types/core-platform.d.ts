// The only runtime globals src/core may use: web-standard APIs that Node 22 and workerd both
// provide. tsconfig.core.json compiles the core with these declarations and nothing else (no
// Node types, no Workers types, no DOM), so the core cannot lean on one runtime by accident.
// Each line is a dependency on the platform: before adding one, prefer a port (src/core/ports.ts).

/** contract/hash.ts: the contract hash's UTF-8 bytes. */
declare class TextEncoder {
  encode(input?: string): Uint8Array<ArrayBuffer>;
}

/** contract/hash.ts: SHA-256 of the contract. */
declare const crypto: {
  readonly subtle: { digest(algorithm: "SHA-256", data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> };
};

/** json.ts: deep copies of JSON values. */
declare function structuredClone<T>(value: T): T;

/** ports.ts: the default clock's sleep. */
declare function setTimeout(callback: () => void, ms: number): unknown;

/** tools/upstream.ts: parsing upstream URLs and building a real-tools call's URL (WHATWG URL, as both runtimes have it). */
declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly hostname: string;
  readonly searchParams: { append(name: string, value: string): void };
  toString(): string;
}
