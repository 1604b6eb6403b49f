import { z } from 'zod';

/**
 * The sync wire protocol, shared by the client (lib/sync) and the server
 * (lib/syncServer). Every request and response body is one of these schemas;
 * docs/sync.md describes the exchange. The server sees opaque keys, an HLC for
 * session records, and ciphertext: never a session's content, title or ids.
 */

/** Opaque ids (HMAC-SHA-256 truncated to 128 bits, base64url) and space ids (HKDF, 128 bits). */
const opaqueId = z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'an opaque id is 22 base64url characters');
/** Device ids are 128 random bits, base64url. */
const deviceId = opaqueId;
/** Verifiers are SHA-256 digests, base64url. */
const verifier = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'a verifier is a SHA-256 digest in base64url');
const base64url = z.string().regex(/^[A-Za-z0-9_-]*$/, 'base64url');
/** A hybrid logical clock, as lib/sync/hlc.ts formats it (it sorts as a string). */
export const hlcString = z.string().regex(/^\d{15}:[0-9a-f]{4}:[A-Za-z0-9_-]{1,32}$/, 'a hybrid logical clock');

/** Bodies are ciphertext; a record holds one entry or one session's metadata, images included, so the cap is generous. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;
export const MAX_PUSH_RECORDS = 1000;
export const MAX_PUSH_BODY_BYTES = 24 * 1024 * 1024;
export const MAX_PULL_LIMIT = 1000;

export const recordKind = z.enum(['entry', 'session']);
export type RecordKind = z.infer<typeof recordKind>;

export const pushRecord = z
  .object({
    kind: recordKind,
    /** Entry: HMAC(session id, entry id). Session: HMAC(session id). Unique per space and kind. */
    key: opaqueId,
    sessionKey: opaqueId,
    /** Session records only: the last-writer-wins clock of the metadata inside. */
    hlc: hlcString.optional(),
    body: base64url.max(Math.ceil((MAX_RECORD_BYTES * 4) / 3), 'a record body is at most 8 MB'),
  })
  .refine((r) => (r.kind === 'session') === (r.hlc !== undefined), { message: 'session records carry an hlc, entries do not' })
  .refine((r) => r.kind !== 'session' || r.key === r.sessionKey, { message: 'a session record is keyed by its session key' });
export type PushRecord = z.infer<typeof pushRecord>;

export const pushRequest = z.object({ records: z.array(pushRecord).min(1).max(MAX_PUSH_RECORDS) });

export const pushResponse = z.object({
  /** Records that changed the server's state (new entries, winning session records). */
  stored: z.number().int().nonnegative(),
  /** The space's newest sequence number after this push. */
  head: z.number().int().nonnegative(),
});
export type PushResponse = z.infer<typeof pushResponse>;

export const pulledRecord = z.object({
  seq: z.number().int().positive(),
  kind: recordKind,
  key: opaqueId,
  sessionKey: opaqueId,
  hlc: hlcString.nullable(),
  body: base64url,
  /** The device that wrote it (so a device can skip its own records). */
  device: deviceId,
});
export type PulledRecord = z.infer<typeof pulledRecord>;

export const pullResponse = z.object({
  records: z.array(pulledRecord),
  /** Pass as `after` next time: the last seq in `records`, or the request's `after` when empty. */
  checkpoint: z.number().int().nonnegative(),
  /** The space's newest sequence number when the page was read. */
  head: z.number().int().nonnegative(),
  more: z.boolean(),
});
export type PullResponse = z.infer<typeof pullResponse>;

export const deviceRegistration = z.object({
  id: deviceId,
  tokenVerifier: verifier,
  /** The device's name, sealed with the space key: the server cannot read it. */
  name: base64url.max(4096),
});
export type DeviceRegistration = z.infer<typeof deviceRegistration>;

/** POST /api/sync/space: creates a space (Authorization: the space's auth key) with this device in it. */
export const createSpaceRequest = z.object({ spaceId: opaqueId, authVerifier: verifier, device: deviceRegistration });
/** POST /api/sync/join: adds a device to an existing space (Authorization: the space's auth key). */
export const joinRequest = z.object({ spaceId: opaqueId, device: deviceRegistration });

export const deviceInfo = z.object({
  id: deviceId,
  name: base64url,
  createdAt: z.number(),
  lastSeenAt: z.number().nullable(),
  revoked: z.boolean(),
});
export type DeviceInfo = z.infer<typeof deviceInfo>;
export const devicesResponse = z.object({ devices: z.array(deviceInfo) });

/** POST /api/sync/revoke: removes a device (itself, to leave) from the space. */
export const revokeRequest = z.object({ deviceId });

/**
 * Error codes the client acts on: `unknown_space` (wrong sync code),
 * `unauthorized` (bad key), `revoked` (this device was removed), `invalid` (a
 * malformed request), `too_large` (this request is too big: a smaller one
 * would pass), `rate_limited` (429: too many requests; wait for Retry-After),
 * `quota_exceeded` (507: the space holds what the server allows, until
 * something changes on the server), `unavailable` (the database is down).
 */
export type SyncErrorCode = 'unknown_space' | 'unauthorized' | 'revoked' | 'invalid' | 'too_large' | 'rate_limited' | 'quota_exceeded' | 'unavailable' | 'exists';

/**
 * Credentials travel in the Authorization header, never in a URL (URLs end up
 * in logs and browser history). `Space <spaceId>.<authKey>` proves knowledge
 * of the code (create, join); `Device <deviceId>.<token>` is what a device uses
 * afterwards, so removing a device cuts it off without changing the code.
 */
export const spaceAuthorization = (spaceId: string, authKey: string) => `Space ${spaceId}.${authKey}`;
export const deviceAuthorization = (deviceId: string, token: string) => `Device ${deviceId}.${token}`;

export type Credentials = { kind: 'space'; spaceId: string; secret: string } | { kind: 'device'; deviceId: string; secret: string };

export function parseAuthorization(header: string | null): Credentials | null {
  const m = /^(Space|Device) ([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(header ?? '');
  if (!m) return null;
  return m[1] === 'Space' ? { kind: 'space', spaceId: m[2]!, secret: m[3]! } : { kind: 'device', deviceId: m[2]!, secret: m[3]! };
}

/** A live-stream event: the space's head moved (pull now), or this device was removed. */
export type LiveEvent = { type: 'head'; head: number } | { type: 'revoked' };
