'use client';

import { ArrowUp, File, Paperclip, Square, X } from 'lucide-react';
import { useRef, useState } from 'react';
import { toast } from 'sonner';
import { IconButton } from '@/components/common/IconButton';
import { useComposerRef } from '@/components/state/composerFocus';
import { formatBytes } from '@/lib/format/numbers';
import type { UserContent } from '@/lib/session/types';

const MAX_ATTACHMENT_BYTES = 15 * 1024 * 1024;

async function toBase64(file: File): Promise<string> {
  const buf = new Uint8Array(await file.arrayBuffer());
  let bin = '';
  for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode(...buf.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Reads an attachment into a content part; images keep their pixel size, which token formulas need. */
async function readAttachment(file: File): Promise<UserContent> {
  if (file.size > MAX_ATTACHMENT_BYTES) throw new Error(`${file.name} is larger than 15 MB.`);
  if (file.type.startsWith('image/')) {
    const bitmap = await createImageBitmap(file);
    const part: UserContent = { type: 'image', mimeType: file.type, data: await toBase64(file), width: bitmap.width, height: bitmap.height, byteLength: file.size };
    bitmap.close();
    return part;
  }
  const isText = file.type.startsWith('text/') || /\.(md|txt|json|csv|ts|tsx|js|py|rs|go|java|c|h|cpp|yaml|yml|toml|html|css|sh)$/i.test(file.name);
  return { type: 'file', name: file.name, mimeType: file.type || 'application/octet-stream', byteLength: file.size, ...(isText ? { text: await file.text() } : {}) };
}

export function Composer({
  draft,
  onDraft,
  onSend,
  onStop,
  busy,
  disabledReason,
}: {
  draft: string;
  onDraft: (text: string) => void;
  /** Resolves with whether the message was stored; the text and attachments stay until it was. */
  onSend: (text: string, attachments: UserContent[]) => Promise<boolean>;
  onStop: () => void;
  busy: boolean;
  disabledReason?: string;
}) {
  const [attachments, setAttachments] = useState<UserContent[]>([]);
  // While a send is being stored: the text is still here, and must not be sent twice.
  const [sending, setSending] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const textRef = useComposerRef();
  const canSend = !busy && !sending && !disabledReason && (draft.trim().length > 0 || attachments.length > 0);

  async function send() {
    if (!canSend) return;
    const sent = attachments;
    setSending(true);
    try {
      // Only what went out is removed: an attachment picked meanwhile stays.
      if (await onSend(draft, sent)) setAttachments((xs) => xs.filter((a) => !sent.includes(a)));
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="composer-dock">
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        {attachments.length > 0 && (
          <ul className="attachments" aria-label="Attachments">
            {attachments.map((a, i) => (
              <li key={i} className="attachment-chip">
                {a.type === 'image' && a.data ? (
                  // eslint-disable-next-line @next/next/no-img-element -- a data: URL of the picked file; next/image cannot optimise it
                  <img src={`data:${a.mimeType};base64,${a.data}`} alt="" className="attachment-thumb" />
                ) : (
                  <File aria-hidden="true" className="icon" />
                )}
                <span className="attachment-name">
                  {a.type === 'image' ? `Image ${a.width}×${a.height}` : a.type === 'file' ? a.name : ''}
                  {a.type === 'file' && <span className="muted"> · {formatBytes(a.byteLength)}</span>}
                </span>
                <IconButton icon={X} size="sm" label="Remove attachment" tooltip="Remove" tooltipSide="top" onClick={() => setAttachments((xs) => xs.filter((_, j) => j !== i))} />
              </li>
            ))}
          </ul>
        )}
        <textarea
          ref={textRef}
          aria-label="Message"
          placeholder={disabledReason ?? 'Message the model…'}
          value={draft}
          rows={1}
          onChange={(e) => onDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <div className="composer-actions">
          <input
            ref={fileRef}
            type="file"
            multiple
            hidden
            aria-hidden="true"
            tabIndex={-1}
            onChange={async (e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              for (const f of files) {
                try {
                  const part = await readAttachment(f);
                  setAttachments((xs) => [...xs, part]);
                } catch (err) {
                  toast.error(err instanceof Error ? err.message : String(err));
                }
              }
            }}
          />
          <IconButton icon={Paperclip} label="Attach" tooltip="Attach files or images" tooltipSide="top" onClick={() => fileRef.current?.click()} />
          <span className="composer-hint" aria-hidden="true">
            Enter to send · Shift+Enter for a new line
          </span>
          {busy ? (
            <IconButton icon={Square} label="Stop" tooltip="Stop the reply" tooltipSide="top" variant="danger" className="send-btn" onClick={onStop} />
          ) : (
            <IconButton icon={ArrowUp} type="submit" label="Send" tooltip="Send (Enter)" tooltipSide="top" variant="primary" className="send-btn" disabled={!canSend} />
          )}
        </div>
      </form>
    </div>
  );
}
