/** The fenced code blocks of a Markdown document, as the docs test reads them. */

export interface FencedBlock {
  /** The fence's language (its info string's first word), "" when it names none. */
  language: string;
  /** 1-based line of the block's first content line in the document. */
  line: number;
  /** The content, without the fences, ending in a newline unless empty. */
  text: string;
  /** The reason given by a `<!-- docs-test: skip: <reason> -->` comment right above the fence. */
  skipReason?: string;
  /** A `docs-test:` comment right above the fence that is not a well-formed skip. */
  malformedMarker?: string;
}

const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const MARKER = /^\s*<!--\s*docs-test:(.*?)-->\s*$/;
const SKIP = /^\s*skip:\s*(\S.*?)\s*$/;

/** Every fenced block, in order. An unclosed fence runs to the end of the document, as CommonMark reads it. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", info = ""] = open;
    const language = info.trim().split(/\s+/)[0] ?? "";
    const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    const content: string[] = [];
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] ?? "")) {
      // Content is dedented by the opening fence's indentation, as CommonMark does.
      content.push((lines[end] ?? "").replace(new RegExp(`^ {0,${indent.length}}`), ""));
      end++;
    }
    const block: FencedBlock = { language, line: index + 2, text: content.length ? `${content.join("\n")}\n` : "" };
    const marker = MARKER.exec(lines[index - 1] ?? "");
    if (marker) {
      const skip = SKIP.exec(marker[1] ?? "");
      if (skip?.[1]) block.skipReason = skip[1];
      else block.malformedMarker = lines[index - 1]?.trim() ?? "";
    }
    blocks.push(block);
    index = end;
  }
  return blocks;
}
