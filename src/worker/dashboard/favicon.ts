/**
 * The site icon at /favicon.ico: browsers ask for it on every first visit, and a 404 there fills a
 * server's log and the browser's console with noise. A 16×16 ICO holding one PNG (a white check on
 * the header's blue), 153 bytes, inlined so the Worker needs no asset binding for it.
 */
export const FAVICON_PATH = "/favicon.ico";

const FAVICON_BASE64 =
  "AAABAAEAEBAAAAEAIACDAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAQAAAAEAgGAAAAH/P/YQAAAEpJREFUeNpj4Lad+J8SzAAipMJ2kIWHqAEgQLYBMECWAcgApwHIkoQ04zQAXREuzXgNgCnGpxlnGGADJEcjMZoJxgIhzYMsKVOCAQC4S5EQhCcyAAAAAElFTkSuQmCC";

export function faviconBytes(): Uint8Array {
  return Uint8Array.from(atob(FAVICON_BASE64), (char) => char.charCodeAt(0));
}
