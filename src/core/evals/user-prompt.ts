/**
 * What the user model is told, and how it sees the conversation. The intent is τ-bench's user
 * simulator's, in toolproof's words: be the customer the instruction describes, say one thing at a
 * time, give a detail only when the agent asks for it, never make one up, and end the conversation
 * with the stop token once the goal is met or cannot be met.
 *
 * The user model sees the conversation from the user's side: the agent's text answers arrive as
 * the `user` role and its own earlier messages as `assistant`. Tool calls and tool results are the
 * agent's business and are left out, as a customer on a chat line never sees them. Like τ-bench,
 * the conversation opens with the agent's greeting, so the user model's first answer is its
 * opening request.
 */
import type { ChatMessage } from "../ports.js";
import { USER_STOP_TOKEN } from "./conversation-types.js";

/** The agent's opening line, as the user model hears it (the agent itself is never asked for it). */
export const AGENT_GREETING = "Hi! How can I help you today?";

export function userSystemPrompt(instruction: string): string {
  return [
    "You are playing a customer who is talking to a customer service agent, to test that agent.",
    "",
    "Who you are and what you want:",
    instruction,
    "",
    "How to play the customer:",
    "- Write one short message at a time, as a customer would in a chat, in the first person.",
    "- Do not say everything at once. Give a detail (a name, an email, an order id, a choice) only when the agent asks for it or it is needed to go on.",
    "- Never invent anything the text above does not give you: if the agent asks for something you were not told, say that you do not know or do not have it.",
    "- Stay in your role: you are the customer, not the agent, and you do not know how the agent's systems work.",
    "- Do not repeat the text above word for word; say it in your own words.",
    `- When what you came for is done, or it cannot be done, end the conversation: write ${USER_STOP_TOKEN} on its own as your last message, and nothing else after it.`,
  ].join("\n");
}

/** The user model's request messages: its prompt, the greeting, then the conversation so far from its side. */
export function userModelMessages(instruction: string, agentMessages: readonly ChatMessage[]): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: userSystemPrompt(instruction) },
    { role: "user", content: AGENT_GREETING },
  ];
  for (const message of agentMessages) {
    // The agent's system prompt and its tool traffic are not the user's to see.
    if (message.role === "user") messages.push({ role: "assistant", content: message.content });
    else if (message.role === "assistant" && message.content !== null && message.content.trim() !== "")
      messages.push({ role: "user", content: message.content });
  }
  return messages;
}

/** Whether the user model ended the conversation with this message. */
export function endsConversation(content: string): boolean {
  return content.includes(USER_STOP_TOKEN);
}
