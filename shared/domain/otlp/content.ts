/**
 * Span content (input and output) in the shapes the dialects send it, turned into what a user reads:
 * chat messages stay lists of messages, tool arguments and results stay the values they encode.
 */
import type { AttributeValue } from '../spans/model.ts';
import { type Attributes, asText, parsedJson } from './attributes.ts';

type JsonObject = { [key: string]: AttributeValue };

const isObject = (value: AttributeValue | undefined): value is JsonObject =>
  value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);

/** Content as stored: strings as sent, structured values as JSON. */
export const contentText = (value: AttributeValue | null | undefined): string | null => (value === null || value === undefined ? null : asText(value));

/** `gen_ai.system_instructions` leads the conversation as a system message, in the parts shape of the current conventions. */
export function withSystemInstructions(messages: AttributeValue | null, instructions: AttributeValue | null): AttributeValue | null {
  if (instructions === null) return messages;
  const system = { role: 'system', parts: Array.isArray(instructions) ? instructions : [{ type: 'text', content: instructions }] };
  return Array.isArray(messages) ? [system, ...messages] : messages === null ? [system] : [system, messages];
}

/**
 * The Vercel AI SDK's `ai.prompt` (`{system, prompt, messages}` as JSON) as the conversation it
 * describes: the system text, then the messages, or the prompt as a user message.
 */
export function vercelPromptMessages(prompt: AttributeValue | null): AttributeValue | null {
  if (!isObject(prompt)) return prompt;
  const { system, prompt: text, messages } = prompt;
  const conversation: AttributeValue[] = [];
  if (typeof system === 'string' && system !== '') conversation.push({ role: 'system', content: system });
  if (Array.isArray(messages)) conversation.push(...messages);
  if (Array.isArray(text)) conversation.push(...text);
  else if (text !== undefined && text !== null) conversation.push({ role: 'user', content: text });
  return conversation.length > 0 ? conversation : prompt;
}

/**
 * A Vercel AI SDK model response: its text alone, or — when the model called tools — one assistant
 * message in the SDK's own message shape (text and tool-call parts), as `ai.prompt.messages` writes it.
 */
export function vercelResponse(text: AttributeValue | null, toolCalls: AttributeValue | null): AttributeValue | null {
  if (!Array.isArray(toolCalls) || toolCalls.length === 0) return text;
  const parts: AttributeValue[] = typeof text === 'string' && text !== '' ? [{ type: 'text', text }] : [];
  for (const call of toolCalls) {
    parts.push(isObject(call) ? { type: 'tool-call', ...call, ...('input' in call ? { input: parsedJson(call['input']!) } : {}) } : call);
  }
  return [{ role: 'assistant', content: parts }];
}

/**
 * OpenInference messages rebuilt from `llm.input_messages.<i>.message.*`: each item's `message`
 * wrapper dropped, and likewise `tool_call` around tool calls and `message_content` around content parts.
 */
export function openInferenceMessages(items: AttributeValue[] | null): AttributeValue[] | null {
  if (items === null) return null;
  return items.map((item) => {
    const message = isObject(item) && isObject(item['message']) ? item['message'] : item;
    if (!isObject(message)) return message;
    const unwrapped: JsonObject = { ...message };
    if (Array.isArray(message['tool_calls'])) unwrapped['tool_calls'] = message['tool_calls'].map((call) => unwrap(call, 'tool_call'));
    if (Array.isArray(message['contents'])) unwrapped['contents'] = message['contents'].map((part) => unwrap(part, 'message_content'));
    return unwrapped;
  });
}

/** OpenInference `retrieval.documents.<i>.document.*` as a list of documents. */
export const openInferenceDocuments = (items: AttributeValue[] | null): AttributeValue[] | null => items?.map((item) => unwrap(item, 'document')) ?? null;

const unwrap = (item: AttributeValue, wrapper: string): AttributeValue => (isObject(item) && isObject(item[wrapper]) ? item[wrapper] : item);

/**
 * The Traceloop SDK records a function's arguments as `{"args": [...], "kwargs": {...}}`: the keyword
 * arguments alone, or the only positional one, are what was passed; anything else stays as sent.
 */
export function traceloopArguments(input: AttributeValue | null): AttributeValue | null {
  if (!isObject(input) || !Array.isArray(input['args']) || Object.keys(input).some((key) => key !== 'args' && key !== 'kwargs')) return input;
  const args = input['args'];
  const kwargs = isObject(input['kwargs']) ? input['kwargs'] : {};
  const hasKwargs = Object.keys(kwargs).length > 0;
  if (args.length === 0 && hasKwargs) return kwargs;
  if (args.length === 1 && !hasKwargs) return args[0]!;
  return input;
}

/** A string list from an array, a JSON array or a comma-separated string (the ways dialects send tags). */
export function stringList(value: AttributeValue | undefined): string[] {
  const parsed = value === undefined ? undefined : parsedJson(value);
  if (Array.isArray(parsed)) return parsed.filter((item) => item !== null && typeof item !== 'object').map(String);
  if (typeof parsed === 'string')
    return parsed
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '');
  return [];
}

/** A metadata value sent as one JSON object (OpenInference `metadata`, Langfuse non-flattened metadata). */
export function metadataObject(value: AttributeValue | undefined): Attributes {
  if (value === undefined || value === null || value === '') return {};
  const parsed = parsedJson(value);
  return isObject(parsed) ? parsed : { value: parsed };
}
