import { deflateSync, inflateSync } from 'fflate';
import { sessionEntrySchema, sessionMetaSchema } from '@/lib/session/schema';
import type { SessionEntry } from '@/lib/session/types';
import { fromBase64Url, fromUtf8, toBase64Url, utf8 } from './crypto/bytes';
import type { SpaceKeys } from './crypto/keys';
import type { PulledRecord, PushRecord, RecordKind } from './protocol';
import type { MetaFields, RemoteChange } from './ports';
import { hlcString } from './protocol';

/**
 * Records as they travel: the content as JSON, deflated, then padded to a
 * size bucket (./padding.ts) and sealed with
 * AES-GCM under a context naming the record's kind and opaque key, so the
 * server can neither read a record nor pass one off as another. The real
 * session and entry ids are inside; a reader checks that they hash to the
 * record's keys before trusting them.
 */

export class RecordError extends Error {
  override name = 'RecordError';
}

const context = (kind: RecordKind, key: string) => `${kind}\0${key}`;

const deflated = (content: unknown) => deflateSync(utf8(JSON.stringify(content)), { level: 6 });

/** What an entry record holds before it is padded and sealed. */
export function entryPlain(sessionId: string, entry: SessionEntry): Uint8Array {
  // Token caches are this device's own (counted by its tokenizer version): never synced.
  const { tokens: _local, ...content } = entry;
  return deflated({ s: sessionId, e: content });
}

/** What a session record holds before it is padded and sealed: the metadata, or a tombstone. */
export function sessionPlain(sessionId: string, hlc: string, meta: MetaFields | null): Uint8Array {
  return deflated(meta ? { s: sessionId, h: hlc, m: meta } : { s: sessionId, h: hlc, deleted: true });
}

const seal = async (keys: SpaceKeys, kind: RecordKind, key: string, plain: Uint8Array) => toBase64Url(await keys.seal(plain, context(kind, key)));

export async function entryRecord(keys: SpaceKeys, sessionId: string, entry: SessionEntry): Promise<PushRecord> {
  const key = await keys.entryKey(sessionId, entry.id);
  return { kind: 'entry', key, sessionKey: await keys.sessionKey(sessionId), body: await seal(keys, 'entry', key, entryPlain(sessionId, entry)) };
}

export async function sessionRecord(keys: SpaceKeys, sessionId: string, hlc: string, meta: MetaFields | null): Promise<PushRecord> {
  const key = await keys.sessionKey(sessionId);
  return { kind: 'session', key, sessionKey: key, hlc, body: await seal(keys, 'session', key, sessionPlain(sessionId, hlc, meta)) };
}

/** Opens, checks and parses a pulled record. Throws a DecryptError (tampered, foreign) or a RecordError (well sealed but not what it claims). */
export async function openRecord(keys: SpaceKeys, r: PulledRecord): Promise<RemoteChange> {
  const plain = await keys.open(fromBase64Url(r.body), context(r.kind, r.key));
  let content: { s?: unknown; e?: unknown; h?: unknown; m?: unknown; deleted?: unknown };
  try {
    content = JSON.parse(fromUtf8(inflateSync(plain))) as typeof content;
  } catch {
    throw new RecordError('A record does not hold JSON.');
  }
  if (typeof content.s !== 'string' || !content.s) throw new RecordError('A record names no session.');
  const sessionId = content.s;
  if ((await keys.sessionKey(sessionId)) !== r.sessionKey) throw new RecordError('A record is filed under another session.');
  if (r.kind === 'entry') {
    const parsed = sessionEntrySchema.safeParse(content.e);
    if (!parsed.success) throw new RecordError('An entry record does not hold a valid entry.');
    // Only known fields are kept when it is stored (lib/db/rows.ts), whatever else the record carries.
    const entry = parsed.data as SessionEntry;
    if ((await keys.entryKey(sessionId, entry.id)) !== r.key) throw new RecordError('An entry record holds another entry.');
    return { kind: 'entry', sessionId, entry };
  }
  const hlc = hlcString.safeParse(content.h);
  if (!hlc.success) throw new RecordError('A session record has no valid clock.');
  if (content.deleted === true) return { kind: 'session', sessionId, hlc: hlc.data, meta: null };
  const meta = sessionMetaSchema.safeParse({ ...(content.m as object), id: sessionId });
  if (!meta.success) throw new RecordError('A session record does not hold valid metadata.');
  const { id: _id, ...fields } = meta.data as MetaFields & { id: string };
  return { kind: 'session', sessionId, hlc: hlc.data, meta: fields };
}
