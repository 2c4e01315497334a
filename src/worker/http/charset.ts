/**
 * Request bodies are read as UTF-8, the only encoding JSON may use between systems (RFC 8259,
 * section 8.1). A Content-Type that names another charset is refused rather than decoded as UTF-8
 * anyway, which would turn "café" in Latin-1 into other text, or into a refusal that blames the bytes.
 */

/** The charset parameter of a Content-Type (`charset=latin1`, `charset="utf-8"`), or undefined. */
function declaredCharset(contentType: string): string | undefined {
  for (const parameter of contentType.split(";").slice(1)) {
    const equals = parameter.indexOf("=");
    if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== "charset") continue;
    const value = parameter.slice(equals + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/** Why a body sent with this Content-Type cannot be read, or undefined when it names UTF-8 or no charset. */
export function otherCharsetProblem(contentType: string): string | undefined {
  const charset = declaredCharset(contentType);
  if (charset === undefined || /^utf-?8$/i.test(charset)) return undefined;
  return `"${contentType}" names the charset "${charset}"; request bodies are read as UTF-8 only (send the text as UTF-8, or leave the charset out)`;
}
