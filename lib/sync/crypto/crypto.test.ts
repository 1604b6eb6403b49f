import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url, utf8 } from './bytes';
import { nobleBackend, webCryptoBackend } from './backend';
import { codeToWords, joinLink, newSyncCode, SyncCodeError, wordsFromFragment, wordsToCode } from './code';
import { authVerifierOf, DecryptError, deriveSpaceKeys } from './keys';

const web = webCryptoBackend(webcrypto.subtle as SubtleCrypto);

describe('sync code', () => {
  it('is 128 random bits shown as 12 words that read back to the same bytes', () => {
    const code = newSyncCode();
    expect(code.length).toBe(16);
    const words = codeToWords(code);
    expect(words.split(' ')).toHaveLength(12);
    expect(wordsToCode(`  ${words.toUpperCase().split(' ').join(',  ')} `)).toEqual(code);
    expect(wordsToCode(wordsFromFragment(new URL(joinLink('http://192.168.1.20:3000', words)).hash)!)).toEqual(code);
  });

  it('refuses a misspelt word, a missing word and a wrong checksum with a reason', () => {
    const words = codeToWords(newSyncCode()).split(' ');
    expect(() => wordsToCode([...words.slice(0, 11), 'zzzz'].join(' '))).toThrow(/Not a word of the sync code: “zzzz”/);
    expect(() => wordsToCode(words.slice(0, 11).join(' '))).toThrow(/has 12 words; this has 11/);
    // Swapping two different words keeps every word valid but breaks the checksum (or, 1 time in 16, gives another valid code).
    const swapped = [...words];
    const i = swapped.findIndex((w, k) => k > 0 && w !== swapped[0]);
    [swapped[0], swapped[i]] = [swapped[i]!, swapped[0]!];
    try {
      expect(wordsToCode(swapped.join(' '))).not.toEqual(wordsToCode(words.join(' ')));
    } catch (err) {
      expect(err).toBeInstanceOf(SyncCodeError);
    }
  });
});

describe('keys and records: WebCrypto and the pure-JS fallback interoperate', () => {
  const code = fromBase64Url('AAECAwQFBgcICQoLDA0ODw');

  it('derive the same space id, auth key, verifier and opaque ids', async () => {
    const [a, b] = await Promise.all([deriveSpaceKeys(code, web), deriveSpaceKeys(code, nobleBackend)]);
    expect(a.backend).toBe('webcrypto');
    expect(b.backend).toBe('noble');
    expect(a.spaceId).toBe(b.spaceId);
    expect(a.authKey).toEqual(b.authKey);
    expect(await authVerifierOf(a.authKey, web)).toBe(await authVerifierOf(b.authKey, nobleBackend));
    expect(await a.entryKey('s1', 'e1')).toBe(await b.entryKey('s1', 'e1'));
    expect(await a.sessionKey('s1')).toBe(await b.sessionKey('s1'));
    // Different keys for different things: none equals another.
    const ids = new Set([a.spaceId, toBase64Url(a.authKey), await a.entryKey('s1', 'e1'), await a.entryKey('s1', 'e2'), await a.sessionKey('s1')]);
    expect(ids.size).toBe(5);
  });

  it('each opens what the other sealed, and both refuse a flipped bit or a different context', async () => {
    const [a, b] = await Promise.all([deriveSpaceKeys(code, web), deriveSpaceKeys(code, nobleBackend)]);
    const plain = utf8('{"hello":"wörld"}');
    const fromWeb = await a.seal(plain, 'entry\0k1');
    const fromNoble = await b.seal(plain, 'entry\0k1');
    expect(await b.open(fromWeb, 'entry\0k1')).toEqual(plain);
    expect(await a.open(fromNoble, 'entry\0k1')).toEqual(plain);
    for (const keys of [a, b]) {
      const tampered = fromWeb.slice();
      tampered[20]! ^= 1;
      await expect(keys.open(tampered, 'entry\0k1')).rejects.toBeInstanceOf(DecryptError);
      await expect(keys.open(fromWeb, 'entry\0k2')).rejects.toBeInstanceOf(DecryptError);
    }
    const other = await deriveSpaceKeys(fromBase64Url('AQECAwQFBgcICQoLDA0ODw'), nobleBackend);
    await expect(other.open(fromWeb, 'entry\0k1')).rejects.toThrow(/integrity check/);
  });
});

describe('base64url', () => {
  it('round-trips every length and refuses foreign characters', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
      expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
    expect(() => fromBase64Url('ab+/')).toThrow(/base64url/);
  });
});
