'use client';

import { ChevronLeft, ChevronRight, Copy, File, Forward, ImageOff, Pencil, Pin, RefreshCw, Tag, Wrench } from 'lucide-react';
import { memo, useState } from 'react';
import { toast } from 'sonner';
import { copyText } from '@/lib/browser/clipboard';
import { Markdown, StreamingMarkdown } from '@/components/common/Markdown';
import { IconButton } from '@/components/common/IconButton';
import { ImageThumb } from '@/components/common/ImageViewer';
import { formatBytes, formatCount } from '@/lib/format/numbers';
import { messageText } from '@/lib/session/messages';
import type { AssistantMessage, ChatMessage, ImagePart, SessionEntry, ToolResultMessage, UserContent } from '@/lib/session/types';
import { StreamingNote } from './StreamingNote';

export interface MessageActions {
  onEdit?: (entry: SessionEntry, text: string) => void;
  onRegenerate?: (entry: SessionEntry) => void;
  onSwitchSibling?: (entry: SessionEntry, direction: -1 | 1) => void;
  onJumpTo?: (entryId: string) => void;
  /** "Continue in new session" from this message. */
  onContinue?: (entry: SessionEntry) => void;
  /** "Keep verbatim": pin (true) or unpin (false) the message through compactions. */
  onPin?: (entry: SessionEntry, pinned: boolean) => void;
}

export interface SiblingInfo {
  index: number;
  count: number;
}

const TOOL_RESULT_PREVIEW = 1200;

async function copy(text: string) {
  if (await copyText(text)) toast.success('Copied');
  else toast.error('Copy failed: the browser refused clipboard access.');
}

function imageSrc(p: ImagePart): string | undefined {
  // External images are not loaded (privacy, and the CSP allows only this origin, data: and blob:).
  return p.data ? `data:${p.mimeType};base64,${p.data}` : undefined;
}

function ImageView({ part }: { part: ImagePart }) {
  const src = imageSrc(part);
  const size = part.width && part.height ? `${part.width}×${part.height}` : '';
  if (!src)
    return (
      <div className="attachment">
        <ImageOff aria-hidden="true" className="icon" /> Image {size} {part.url ? '(not embedded)' : ''}
      </div>
    );
  return <ImageThumb src={src} alt={`Attached image${size ? `, ${size}` : ''}`} width={part.width} height={part.height} />;
}

function UserBody({ content }: { content: UserContent[] }) {
  const images = content.filter((p): p is ImagePart => p.type === 'image');
  return (
    <>
      {images.length > 0 && (
        <div className="msg-images">
          {images.map((p, i) => (
            <ImageView key={i} part={p} />
          ))}
        </div>
      )}
      {content.map((p, i) =>
        p.type === 'text' ? (
          <div key={i} className="user-text">
            {p.text}
          </div>
        ) : p.type === 'file' ? (
          <div key={i} className="attachment file-chip">
            <File aria-hidden="true" className="icon" />
            <span className="file-name">{p.name}</span>
            <span className="muted">{formatBytes(p.byteLength)}</span>
          </div>
        ) : null,
      )}
    </>
  );
}

/** A box that scrolls (long tool output): focusable, so it can be scrolled from the keyboard too. */
function ScrollBox({ className, pre, children }: { className: string; pre?: boolean; children: React.ReactNode }) {
  // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
  return pre ? <pre className={className} tabIndex={0}>{children}</pre> : <div className={className} tabIndex={0}>{children}</div>;
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
              <ScrollBox className="pre">{p.redacted ? '(redacted by the provider)' : p.thinking}</ScrollBox>
            </details>
          );
        return (
          <details key={i} className="tool-call">
            <summary>
              <Wrench aria-hidden="true" className="icon" /> <span className="tool-name">{p.name}</span> <code className="args-preview">{JSON.stringify(p.arguments).slice(0, 120)}</code>
            </summary>
            <ScrollBox className="pre" pre>
              {JSON.stringify(p.arguments, null, 2)}
            </ScrollBox>
          </details>
        );
      })}
    </>
  );
}

function ToolResultBody({ message, masked }: { message: ToolResultMessage; masked?: boolean }) {
  const text = messageText(message);
  const [full, setFull] = useState(false);
  const long = text.length > TOOL_RESULT_PREVIEW;
  return (
    <details className={`tool-result${message.isError ? ' error' : ''}`}>
      <summary>
        <span className={`tag${message.isError ? ' warn' : ''}`}>{message.isError ? 'tool error' : 'tool result'}</span> <span className="tool-name">{message.toolName}</span>{' '}
        <span className="muted">· {formatCount(text.length)} chars</span>
        {masked && (
          <span className="tag" title="The model sees a one-line stub of this output; the original is kept here. Undo the masking in the Timeline.">
            masked in context
          </span>
        )}
      </summary>
      <ScrollBox className="pre" pre>
        {full || !long ? text : `${text.slice(0, TOOL_RESULT_PREVIEW)}…`}
      </ScrollBox>
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

/** The model's short name: "compat:mock-large" reads as "mock-large". */
function shortModel(id: string): string {
  return id.includes(':') ? id.slice(id.indexOf(':') + 1) : id;
}

function SiblingSwitch({ entry, siblings, onSwitch }: { entry: SessionEntry; siblings: SiblingInfo; onSwitch?: MessageActions['onSwitchSibling'] }) {
  return (
    <span className="sibling-switch" role="group" aria-label="Branches">
      <IconButton icon={ChevronLeft} size="sm" label="Previous branch" tooltipSide="top" disabled={siblings.index === 0} onClick={() => onSwitch?.(entry, -1)} />
      <span className="sibling-pos">
        {siblings.index + 1}/{siblings.count}
      </span>
      <IconButton icon={ChevronRight} size="sm" label="Next branch" tooltipSide="top" disabled={siblings.index === siblings.count - 1} onClick={() => onSwitch?.(entry, 1)} />
    </span>
  );
}

export const MessageItem = memo(function MessageItem({
  entry,
  message,
  streamingText,
  inContext,
  siblings,
  label,
  pinned,
  masked,
  actions,
}: {
  entry: SessionEntry;
  message: ChatMessage;
  /** Live text while this reply streams (newer than the throttled stored copy). */
  streamingText?: string;
  inContext: boolean;
  siblings?: SiblingInfo;
  label?: string;
  /** Kept verbatim through compactions. */
  pinned?: boolean;
  /** A tool result the model sees as a stub (observation masking). */
  masked?: boolean;
  actions: MessageActions;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const text = messageText(message);
  const isUser = message.role === 'user';
  const assistant = message.role === 'assistant' ? message : null;
  const streaming = streamingText !== undefined || assistant?.status === 'streaming';
  const usage = assistant?.usage;

  return (
    <article
      className={`msg ${message.role}${inContext ? '' : ' outside-context'}${editing ? ' editing' : ''}${pinned ? ' pinned' : ''}`}
      aria-label={roleLabel(message)}
      data-entry-id={entry.id}
      aria-busy={streaming || undefined}
      title={inContext ? undefined : 'Summarised: the model sees this through the compaction summary, not verbatim.'}
    >
      {label && (
        <div className="msg-label">
          <Tag aria-hidden="true" className="icon" /> {label}
        </div>
      )}
      {pinned && (
        <div className="msg-label pinned-label">
          <Pin aria-hidden="true" className="icon" /> Pinned: kept verbatim through compactions
        </div>
      )}
      <div className="msg-body">
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
            <div className="row edit-actions">
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
            <StreamingMarkdown text={streamingText || '…'} />
          ) : (
            <AssistantBody message={message} />
          )
        ) : (
          <ToolResultBody message={message} masked={masked} />
        )}

        {assistant?.stopReason === 'error' && (
          <p className="msg-error" role="alert">
            {assistant.errorMessage ?? 'The model returned an error.'}
          </p>
        )}
        {assistant?.stopReason && STOP_NOTES[assistant.stopReason] && <p className="msg-note">{STOP_NOTES[assistant.stopReason]}</p>}
        {streaming && <StreamingNote />}
      </div>

      {!editing && !streaming && message.role !== 'toolResult' && (
        <footer className="msg-actions">
          {siblings && siblings.count > 1 && <SiblingSwitch entry={entry} siblings={siblings} onSwitch={actions.onSwitchSibling} />}
          <IconButton icon={Copy} size="sm" label="Copy" tooltip="Copy message" tooltipSide="top" onClick={() => void copy(text)} />
          {isUser && actions.onEdit && (
            <IconButton
              icon={Pencil}
              size="sm"
              label="Edit"
              tooltip="Edit and resend"
              tooltipSide="top"
              onClick={() => {
                setDraft(text);
                setEditing(true);
              }}
            />
          )}
          {assistant && actions.onRegenerate && (
            <IconButton icon={RefreshCw} size="sm" label="Regenerate" tooltip="Regenerate reply" tooltipSide="top" onClick={() => actions.onRegenerate?.(entry)} />
          )}
          {actions.onPin && (
            <IconButton
              icon={Pin}
              size="sm"
              label="Keep verbatim"
              tooltip={pinned ? 'Unpin: let compaction summarise it again' : 'Keep verbatim: never summarised away'}
              tooltipSide="top"
              aria-pressed={!!pinned}
              onClick={() => actions.onPin?.(entry, !pinned)}
            />
          )}
          {actions.onContinue && (
            <IconButton icon={Forward} size="sm" label="Continue in new session" tooltip="Continue in a new session" tooltipSide="top" onClick={() => actions.onContinue?.(entry)} />
          )}
          {assistant && (assistant.model || usage) && (
            <span className="msg-meta">
              {assistant.model && <span>{shortModel(assistant.model)}</span>}
              {usage && (
                <span title={`Tokens the provider reported for this request: ${formatCount(usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0))} in, ${formatCount(usage.output)} out`}>
                  {formatCount(usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0))} in · {formatCount(usage.output)} out
                </span>
              )}
            </span>
          )}
        </footer>
      )}
    </article>
  );
});
