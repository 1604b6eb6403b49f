import { describe, expect, it } from 'vitest';
import { ACCESS_MAX_AGE_S, accessCookie, constantTimeEqual, mintAccessToken, reachedOverHttps, readCookie, verifyAccessToken } from './token';

const SECRET = 'correct horse battery staple';
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

describe('access tokens', () => {
  it('verifies a token it minted, and does not contain the secret', () => {
    const t = mintAccessToken(SECRET, NOW);
    expect(t).toMatch(/^v1\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(t).not.toContain(SECRET);
    expect(verifyAccessToken(t, SECRET, NOW)).toBe(true);
    expect(verifyAccessToken(t, SECRET, NOW + 29 * 86_400_000)).toBe(true);
  });

  it('refuses it under another secret, changed by one character, or expired', () => {
    const t = mintAccessToken(SECRET, NOW);
    expect(verifyAccessToken(t, `${SECRET}!`, NOW)).toBe(false);
    const mac = t.slice(t.lastIndexOf('.') + 1);
    const flipped = `${t.slice(0, t.lastIndexOf('.') + 1)}${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    expect(verifyAccessToken(flipped, SECRET, NOW)).toBe(false);
    // The issue time is under the MAC: moving it forward to stay fresh breaks the MAC.
    const [, issued] = t.split('.');
    expect(verifyAccessToken(t.replace(`.${issued}.`, `.${Number(issued) + 86_400}.`), SECRET, NOW)).toBe(false);
    expect(verifyAccessToken(t, SECRET, NOW + (ACCESS_MAX_AGE_S + 1) * 1000)).toBe(false);
    // Issued far in the future (a clock gone wrong, or a forgery attempt): refused.
    expect(verifyAccessToken(mintAccessToken(SECRET, NOW + 3_600_000), SECRET, NOW)).toBe(false);
    for (const junk of ['', 'v1', 'v1..', `v2.${t.slice(3)}`, SECRET, `${t}x`]) expect(verifyAccessToken(junk, SECRET, NOW)).toBe(false);
  });

  it('compares secrets whatever their lengths', () => {
    expect(constantTimeEqual(SECRET, SECRET)).toBe(true);
    expect(constantTimeEqual(SECRET, SECRET.slice(0, -1))).toBe(false);
    expect(constantTimeEqual('', SECRET)).toBe(false);
    expect(constantTimeEqual(`${SECRET} `, SECRET)).toBe(false);
  });
});

describe('the cookie', () => {
  it('is httpOnly, SameSite, for the whole site, Secure over https, and expires with the token', () => {
    const c = accessCookie('v1.1.abc', false);
    expect(c).toBe(`longctx_access=v1.1.abc; Path=/; HttpOnly; SameSite=Lax; Max-Age=${ACCESS_MAX_AGE_S}`);
    expect(accessCookie('v1.1.abc', true)).toMatch(/; Secure$/);
    expect(accessCookie(null, false)).toBe('longctx_access=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });

  it('is read from a Cookie header among others', () => {
    expect(readCookie('theme=dark; longctx_access=v1.2.xyz; other=1', 'longctx_access')).toBe('v1.2.xyz');
    expect(readCookie('xlongctx_access=nope', 'longctx_access')).toBeNull();
    expect(readCookie(null, 'longctx_access')).toBeNull();
  });

  it('knows https from the URL or from the proxy in front', () => {
    const at = (url: string, headers: Record<string, string> = {}) => reachedOverHttps({ url, headers: new Headers(headers) });
    expect(at('https://chat.example.com/api/access')).toBe(true);
    expect(at('http://127.0.0.1:3000/api/access', { 'x-forwarded-proto': 'https' })).toBe(true);
    expect(at('http://127.0.0.1:3000/api/access', { origin: 'https://chat.example.com' })).toBe(true);
    expect(at('http://192.168.1.20:3000/api/access', { origin: 'http://192.168.1.20:3000' })).toBe(false);
  });
});
