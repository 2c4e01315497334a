/**
 * Reads a model answer's body up to a bound, chunk by chunk, and stops as soon as it is passed: a
 * 10 MB (or endless) answer costs the bound, not its size, and is never held whole in memory. The
 * read also has a deadline, since the client's own timeout ends when the headers arrive.
 */
import { messageOf } from "../../core/message-of.js";
type AnswerBody =
  | { kind: "text"; text: string }
  | { kind: "too_large" }
  | { kind: "timeout" }
  | { kind: "failed"; message: string };

export async function readAnswerBody(response: Response, maxBytes: number, timeoutMs: number): Promise<AnswerBody> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: "too_large" };
  }
  if (!response.body) return { kind: "text", text: "" };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timeout") {
        await reader.cancel().catch(() => undefined);
        return { kind: "timeout" };
      }
      if (next.done) return { kind: "text", text: text + decoder.decode() };
      size += next.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { kind: "too_large" };
      }
      text += decoder.decode(next.value, { stream: true });
    }
  } catch (error) {
    return { kind: "failed", message: messageOf(error) };
  } finally {
    clearTimeout(timer);
  }
}
