'use client';

import { memo, useState } from 'react';
import { toast } from 'sonner';
import { Markdown } from '@/components/common/Markdown';
import { formatCount } from '@/lib/format/numbers';
import { Icon } from '@/components/common/Icon';
import { messageText } from '@/lib/session/messages';
import type { AssistantMessage, ChatMessage, ImagePart, SessionEntry, ToolResultMessage, UserContent } from '@/lib/session/types';

export interface MessageActions {
  onEdit?: (entry: SessionEntry, text: string) => void;
  onRegenerate?: (entry: SessionEntry) => void;
  onSwitchSibling?: (entry: SessionEntry, direction: -1 | 1) => void;
  onJumpTo?: (entryId: string) => void;
  /** "Continue in new session" from this message. */
  onContinue?: (entry: SessionEntry) => void;
}

export interface SiblingInfo {
  index: number;
  count: number;
}

const TOOL_RESULT_PREVIEW = 1200;

function copy(text: string) {
  navigator.clipboard.writeText(text).then(
    () => toast.success('Copied'),
    () => toast.error('Copy failed: the browser refused clipboard access.'),
  );
}

function imageSrc(p: ImagePart): string | undefined {
  if (p.data) return `data:${p.mimeType};base64,${p.data}`;
  if (p.url && /^(https?:|data:image\/)/.test(p.url)) return undefined; // external images are not loaded (privacy, CSP)
  return undefined;
}

function ImageView({ part }: { part: ImagePart }) {
  const src = imageSrc(part);
  const size = part.width && part.height ? `${part.width}×${part.height}` : '';
  if (!src) return <div className="attachment"><Icon name="image" /> image {size} {part.url ? '(not embedded)' : ''}</div>;
  // eslint-disable-next-line @next/next/no-img-element -- data: URLs of user content; next/image cannot optimise them
  return <img className="msg-image" src={src} alt={`Attachment${size ? `, ${size}` : ''}`} width={part.width} height={part.height} />;
}

function UserBody({ content }: { content: UserContent[] }) {
  return (
    <>
      {content.map((p, i) =>
        p.type === 'text' ? (
          <div key={i} className="user-text">
            {p.text}
          </div>
        ) : p.type === 'image' ? (
          <ImageView key={i} part={p} />
        ) : (
          <div key={i} className="attachment">
            <Icon name="clip" /> {p.name} ({p.mimeType}, {formatCount(p.byteLength)} bytes)
          </div>
        ),
      )}
    </>
  );
}

function AssistantBody({ message }: { message: AssistantMessage }) {
  return (
    <>
      {message.content.map((p, i) => {
        if (p.type === 'text') return <Markdown key={i} text={p.text} />;
        if (p.type === 'thinking')
          return (
            <details key={i} className="thinking">
              <summary>Thinking</summary>
              <div className="pre">{p.redacted ? '(redacted by the provider)' : p.thinking}</div>
            </details>
          );
        return (
          <details key={i} className="tool-call">
            <summary>
              <span className="tag">tool</span> {p.name} <code className="args-preview">{JSON.stringify(p.arguments).slice(0, 120)}</code>
            </summary>
            <pre className="pre">{JSON.stringify(p.arguments, null, 2)}</pre>
          </details>
        );
      })}
    </>
  );
}

function ToolResultBody({ message }: { message: ToolResultMessage }) {
  const text = messageText(message);
  const [full, setFull] = useState(false);
  const long = text.length > TOOL_RESULT_PREVIEW;
  return (
    <details className={`tool-result${message.isError ? ' error' : ''}`}>
      <summary>
        <span className="tag">{message.isError ? 'tool error' : 'tool result'}</span> {message.toolName} · {formatCount(text.length)} chars
      </summary>
      <pre className="pre">{full || !long ? text : `${text.slice(0, TOOL_RESULT_PREVIEW)}…`}</pre>
      {long && (
        <button type="button" className="link-btn" onClick={() => setFull((f) => !f)}>
          {full ? 'Show less' : 'Show all'}
        </button>
      )}
      {message.content.map((p, i) => (p.type === 'image' ? <ImageView key={i} part={p} /> : null))}
    </details>
  );
}

const STOP_NOTES: Partial<Record<NonNullable<AssistantMessage['stopReason']>, string>> = {
  aborted: 'Stopped — the reply so far is kept.',
  interrupted: 'Interrupted — the tab closed while this reply was streaming; what arrived is kept.',
  length: 'Cut off at the output limit.',
};

function roleLabel(m: ChatMessage): string {
  return m.role === 'user' ? 'User message' : m.role === 'assistant' ? 'Assistant message' : 'Tool result';
}

export const MessageItem = memo(function MessageItem({
  entry,
  message,
  streamingText,
  inContext,
  siblings,
  label,
  actions,
}: {
  entry: SessionEntry;
  message: ChatMessage;
  /** Live text while this reply streams (newer than the throttled stored copy). */
  streamingText?: string;
  inContext: boolean;
  siblings?: SiblingInfo;
  label?: string;
  actions: MessageActions;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const text = messageText(message);
  const isUser = message.role === 'user';
  const assistant = message.role === 'assistant' ? message : null;
  const streaming = streamingText !== undefined || assistant?.status === 'streaming';

  return (
    <article
      className={`msg ${message.role}${inContext ? '' : ' outside-context'}`}
      aria-label={roleLabel(message)}
      data-entry-id={entry.id}
      aria-busy={streaming || undefined}
      title={inContext ? undefined : 'Summarised: the model sees this through the compaction summary, not verbatim.'}
    >
      <header className="msg-head">
        <span className="msg-role">{isUser ? 'You' : message.role === 'assistant' ? 'Assistant' : 'Tool'}</span>
        {assistant?.model && <span className="muted small">{assistant.model}</span>}
        {label && <span className="label-chip"><Icon name="tag" /> {label}</span>}
        {siblings && siblings.count > 1 && (
          <span className="sibling-switch" role="group" aria-label="Branches">
            <button type="button" className="icon-btn" aria-label="Previous branch" disabled={siblings.index === 0} onClick={() => actions.onSwitchSibling?.(entry, -1)}>
              ‹
            </button>
            <span className="small">
              {siblings.index + 1}/{siblings.count}
            </span>
            <button type="button" className="icon-btn" aria-label="Next branch" disabled={siblings.index === siblings.count - 1} onClick={() => actions.onSwitchSibling?.(entry, 1)}>
              ›
            </button>
          </span>
        )}
      </header>

      {editing ? (
        <form
          className="edit-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!draft.trim()) return;
            setEditing(false);
            actions.onEdit?.(entry, draft);
          }}
        >
          <textarea aria-label="Edit message" value={draft} autoFocus rows={Math.min(12, draft.split('\n').length + 1)} onChange={(e) => setDraft(e.target.value)} />
          <div className="row">
            <button type="submit" className="btn primary">
              Save and send
            </button>
            <button type="button" className="btn" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : message.role === 'user' ? (
        <UserBody content={message.content} />
      ) : message.role === 'assistant' ? (
        streamingText !== undefined ? (
          <Markdown text={streamingText || '…'} />
        ) : (
          <AssistantBody message={message} />
        )
      ) : (
        <ToolResultBody message={message} />
      )}

      {assistant?.stopReason === 'error' && (
        <p className="msg-error" role="alert">
          {assistant.errorMessage ?? 'The model returned an error.'}
        </p>
      )}
      {assistant?.stopReason && STOP_NOTES[assistant.stopReason] && <p className="muted small">{STOP_NOTES[assistant.stopReason]}</p>}
      {streaming && <p className="muted small streaming-note">Streaming…</p>}

      {!editing && !streaming && message.role !== 'toolResult' && (
        <footer className="msg-actions">
          {isUser && actions.onEdit && (
            <button
              type="button"
              className="link-btn"
              onClick={() => {
                setDraft(text);
                setEditing(true);
              }}
            >
              Edit
            </button>
          )}
          {assistant && actions.onRegenerate && (
            <button type="button" className="link-btn" onClick={() => actions.onRegenerate?.(entry)}>
              Regenerate
            </button>
          )}
          <button type="button" className="link-btn" onClick={() => copy(text)}>
            Copy
          </button>
          {actions.onContinue && (
            <button type="button" className="link-btn" onClick={() => actions.onContinue?.(entry)}>
              Continue in new session
            </button>
          )}
          {assistant?.usage && (
            <span className="muted small" title="Tokens the provider reported for this request">
              {formatCount(assistant.usage.input + (assistant.usage.cacheRead ?? 0) + (assistant.usage.cacheWrite ?? 0))} in · {formatCount(assistant.usage.output)} out
            </span>
          )}
        </footer>
      )}
    </article>
  );
});
