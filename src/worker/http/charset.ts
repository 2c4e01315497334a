/**
 * Request bodies are read as UTF-8, the only encoding JSON may use between systems (RFC 8259,
 * section 8.1). A Content-Type that names another charset is refused rather than decoded as UTF-8
 * anyway, which would turn "café" in Latin-1 into other text, or into a refusal that blames the bytes.
 *
 * Why by hand rather than with the `content-type` package (already here, through the MCP SDK): it
 * keeps only the last of a repeated parameter, so `charset=utf-8; charset=latin1` would pass as
 * Latin-1 or UTF-8 depending on order, and it throws on sloppy but unambiguous headers (whitespace
 * around `=`) that every client library sends somewhere and this reader accepts.
 */

/**
 * The values of every charset parameter of a Content-Type, in order. Parameters are read as RFC 9110
 * section 5.6.6 writes them: `;` between them with optional whitespace around it, names in any case,
 * each value a token or a quoted-string whose backslash escapes are undone, so a `;` or `charset=`
 * inside quotes (`x="a;charset=latin1"`) is part of a value, never a parameter of its own. Whitespace
 * around `=` is tolerated. A parameter without `=` names nothing, and a quoted-string left open runs
 * to the end of the header.
 */
function declaredCharsets(contentType: string): string[] {
  const charsets: string[] = [];
  let at = contentType.indexOf(";");
  // `at` is on a ";" (or past the end) at the top of each turn.
  while (at >= 0 && at < contentType.length) {
    const nameEnd = endOfName(contentType, at + 1);
    const name = contentType
      .slice(at + 1, nameEnd)
      .trim()
      .toLowerCase();
    at = nameEnd;
    if (contentType[at] !== "=") continue;
    let start = at + 1;
    while (contentType[start] === " " || contentType[start] === "\t") start++;
    let value: string;
    if (contentType[start] === '"') {
      const quoted = quotedString(contentType, start + 1);
      value = quoted.value;
      // Anything between the closing quote and the next ";" is not RFC 9110; it is skipped.
      at = indexOrEnd(contentType, ";", quoted.end);
    } else {
      at = indexOrEnd(contentType, ";", start);
      value = contentType.slice(start, at).trim();
    }
    if (name === "charset") charsets.push(value);
  }
  return charsets;
}

/** Where a parameter name starting at `from` ends: at its "=" or ";", or the end of the header. */
function endOfName(text: string, from: number): number {
  let at = from;
  while (at < text.length && text[at] !== "=" && text[at] !== ";") at++;
  return at;
}

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at < 0 ? text.length : at;
}

/** The quoted-string whose text starts at `from` (after its opening quote), unescaped, and where it ends. */
function quotedString(text: string, from: number): { value: string; end: number } {
  let value = "";
  let at = from;
  while (at < text.length) {
    const char = text[at];
    if (char === '"') return { value, end: at + 1 };
    if (char === "\\" && at + 1 < text.length) {
      value += text[at + 1];
      at += 2;
      continue;
    }
    value += char;
    at++;
  }
  return { value, end: at };
}

function isUtf8(charset: string): boolean {
  return /^utf-?8$/i.test(charset);
}

/**
 * Why a body sent with this Content-Type cannot be read, or undefined when it names UTF-8 or no
 * charset. A charset named more than once is one charset when every value is the same (charset
 * names ignore case); values that differ make the header ambiguous, and it is refused whatever they are.
 */
export function otherCharsetProblem(contentType: string): string | undefined {
  const charsets = declaredCharsets(contentType);
  const [charset] = charsets;
  if (charset === undefined) return undefined;
  const header = JSON.stringify(contentType);
  if (charsets.some((other) => other.toLowerCase() !== charset.toLowerCase())) {
    const times = charsets.length === 2 ? "twice" : `${charsets.length} times`;
    const values = charsets.map((value) => JSON.stringify(value));
    const listed = `${values.slice(0, -1).join(", ")} and ${values.at(-1)}`;
    return `${header} names the charset ${times}, as ${listed}; request bodies are read as UTF-8 only (name the charset once, as UTF-8, or leave it out)`;
  }
  if (isUtf8(charset)) return undefined;
  return `${header} names the charset ${JSON.stringify(charset)}; request bodies are read as UTF-8 only (send the text as UTF-8, or leave the charset out)`;
}
