import { useState } from 'react';
import { showBidiControls, UserText } from './UserText';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const LONG_TEXT = 1200;

const parse = (text: string): Json | undefined => {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed) as Json;
  } catch {
    return undefined;
  }
};

interface ChatMessage {
  role: string;
  content: Json;
}

/** Chat messages as the common SDKs send them: `[{role, content}]`, or `{messages: [...]}`. */
function chatMessages(value: Json | undefined): ChatMessage[] | undefined {
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object' && Array.isArray((value as { messages?: Json }).messages)
      ? (value as { messages: Json[] }).messages
      : undefined;
  if (!list || list.length === 0) return undefined;
  const messages = list.filter(
    (m): m is { role: string; content: Json } => !!m && typeof m === 'object' && !Array.isArray(m) && typeof m['role'] === 'string' && 'content' in m,
  );
  return messages.length === list.length ? messages.map((m) => ({ role: m.role, content: m.content })) : undefined;
}

/** Text, cut to a readable length with a "Show all" that reveals the rest. */
export function LongText({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  if (text.length <= LONG_TEXT || all)
    return (
      <pre className="text" tabIndex={0}>
        {showBidiControls(text)}
      </pre>
    );
  return (
    <>
      <pre className="text" tabIndex={0}>
        {showBidiControls(text.slice(0, LONG_TEXT))}…
      </pre>
      <button type="button" className="link" onClick={() => setAll(true)}>
        Show all ({text.length.toLocaleString('en-US')} characters)
      </button>
    </>
  );
}

/** JSON as a tree whose objects and arrays fold. */
export function JsonView({ value, name, open = true }: { value: Json; name?: string; open?: boolean }) {
  const label =
    name !== undefined ? (
      <span className="json-key">
        <UserText text={name} />:{' '}
      </span>
    ) : null;
  if (value === null || typeof value !== 'object') {
    return (
      <div className="json-leaf">
        {label}
        {typeof value === 'string' ? (
          value.length > LONG_TEXT ? (
            <LongText text={value} />
          ) : (
            <span className="json-string">
              "<UserText text={value} />"
            </span>
          )
        ) : (
          <span className="json-value">{String(value)}</span>
        )}
      </div>
    );
  }
  const entries: Array<[string, Json]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  return (
    <details className="json" open={open}>
      <summary>
        {label}
        {Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}
      </summary>
      {entries.map(([key, v]) => (
        <JsonView key={key} name={key} value={v} open={false} />
      ))}
    </details>
  );
}

/** A span's input or output: a conversation, a JSON tree or text, whichever it is. */
export function Content({ text }: { text: string }) {
  const json = parse(text);
  const chat = chatMessages(json);
  if (chat) {
    return (
      <ol className="conversation">
        {chat.map((m, i) => (
          <li key={i} className={`message message-${m.role}`}>
            <span className="role">
              <UserText text={m.role} />
            </span>
            {typeof m.content === 'string' ? <LongText text={m.content} /> : <JsonView value={m.content} />}
          </li>
        ))}
      </ol>
    );
  }
  if (json !== undefined) return <JsonView value={json} />;
  return <LongText text={text} />;
}

export type { Json };
