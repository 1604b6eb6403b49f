import { describe, expect, it } from 'vitest';
import { checkRequest, guardRequest, readGuardPolicy, type RequestFacts } from './requestGuard';

const none = readGuardPolicy({});

/** A request to the app as a browser or client would send it; `host: null` leaves the header out. */
function req(headers: Record<string, string | null>, opts: { method?: string; url?: string } = {}): RequestFacts {
  const h = new Headers();
  const all: Record<string, string | null> = { host: 'localhost:3000', 'content-type': 'application/json', ...headers };
  for (const [k, v] of Object.entries(all)) if (v !== null) h.set(k, v);
  return { method: opts.method ?? 'POST', url: opts.url ?? 'http://localhost:3000/api/chat', headers: h };
}

/** What the app's own page sends: same origin, JSON. */
const own = { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-origin' };

describe('request guard: cross-site callers', () => {
  it('lets the app’s own page through, and clients that are no browser at all', () => {
    expect(checkRequest(req(own), 'json-post', none)).toBeNull();
    expect(checkRequest(req({ ...own, 'content-type': 'application/json; charset=utf-8' }), 'json-post', none)).toBeNull();
    expect(checkRequest(req({ ...own, 'content-type': 'Application/JSON' }), 'json-post', none)).toBeNull();
    // curl, scripts, tests: no Origin, no Sec-Fetch-Site. A browser always sends Origin on a POST.
    expect(checkRequest(req({}), 'json-post', none)).toBeNull();
    // A typed URL or bookmark.
    expect(checkRequest(req({ 'sec-fetch-site': 'none' }), 'json-post', none)).toBeNull();
  });

  it.each([
    ['another site', 'https://evil.example'],
    ['an opaque origin (sandboxed frame, file: page)', 'null'],
    ['this host on another port', 'http://localhost:3001'],
    ['this machine under another name', 'http://127.0.0.1:3000'],
    ['a non-web scheme', 'chrome-extension://abcdef'],
    ['garbage', 'not an origin'],
  ])('refuses an Origin from %s with 403 forbidden', (_what, origin) => {
    const r = checkRequest(req({ origin }), 'json-post', none);
    expect(r).toEqual({ status: 403, kind: 'forbidden', message: `Cross-site request refused: a page from ${origin} may not use this app's model routes.` });
  });

  it.each(['cross-site', 'same-site'])('refuses Sec-Fetch-Site: %s, even without an Origin', (site) => {
    const r = checkRequest(req({ 'sec-fetch-site': site }), 'json-post', none);
    expect(r).toEqual({ status: 403, kind: 'forbidden', message: `Cross-site request refused: the browser says it comes from a ${site} page.` });
    // A matching Origin does not outvote it.
    expect(checkRequest(req({ origin: 'http://localhost:3000', 'sec-fetch-site': site }), 'json-post', none)?.status).toBe(403);
  });

  it.each([
    ['text/plain (a no-cors fetch or a form from anywhere)', 'text/plain;charset=UTF-8'],
    ['form encoding', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a look-alike', 'application/jsonp'],
    ['no Content-Type', null],
  ])('refuses %s with 415, also from a client that is no browser', (_what, type) => {
    const r = checkRequest(req({ 'content-type': type }), 'json-post', none);
    expect(r).toEqual({ status: 415, kind: 'invalid_request', message: 'Request body must be JSON, sent with Content-Type: application/json.' });
    expect(checkRequest(req({ ...own, 'content-type': type }), 'json-post', none)?.status).toBe(415);
  });

  it('compares Origin with the Host by name and port, not scheme: behind a TLS proxy the app is reached over http', () => {
    const policy = readGuardPolicy({ ALLOWED_HOSTS: 'chat.example.com' });
    expect(checkRequest(req({ host: 'chat.example.com', origin: 'https://chat.example.com' }), 'json-post', policy)).toBeNull();
    expect(checkRequest(req({ host: 'chat.example.com:443', origin: 'https://chat.example.com' }), 'json-post', policy)).toBeNull();
    expect(checkRequest(req({ host: 'chat.example.com', origin: 'https://chat.example.com:8443' }), 'json-post', policy)?.status).toBe(403);
    expect(checkRequest(req({ host: 'chat.example.com', origin: 'https://evil.example' }), 'json-post', policy)?.status).toBe(403);
    expect(checkRequest(req({ host: '[::1]:3000', origin: 'http://[::1]:3000' }), 'json-post', none)).toBeNull();
  });
});

describe('request guard: Host names (DNS rebinding)', () => {
  it.each(['localhost:3000', 'LOCALHOST:3000', 'localhost', '127.0.0.1:3000', '192.168.1.20:3000', '10.0.0.5', '[::1]:3000', '[fd00::7]', '0x7f.1:3000'])(
    'a literal address or localhost is always fine: %s',
    (host) => {
      expect(checkRequest(req({ host }), 'json-post', none)).toBeNull();
      expect(checkRequest(req({ host }), 'get', none)).toBeNull();
    },
  );

  it.each(['evil.example:3000', 'evil.example', 'localhost.:3000', 'foo.localhost:3000', '127.0.0.1.nip.io:3000', 'chat.example.com'])(
    'any name not listed is refused, for reads too: %s',
    (host) => {
      const r = checkRequest(req({ host }), 'json-post', none);
      expect(r?.status).toBe(403);
      expect(r?.kind).toBe('forbidden');
      expect(r?.message).toMatch(/^This server does not answer to the name ".+"\. If that is its name, add it to ALLOWED_HOSTS on the server\.$/);
      expect(checkRequest(req({ host }), 'get', none)?.status).toBe(403);
    },
  );

  it.each(['a@b:3000', 'localhost:3000/x', 'local host', ':3000', 'localhost:99999'])('a Host that is not a bare host name is refused: %s', (host) => {
    expect(checkRequest(req({ host }), 'json-post', none)).toEqual({ status: 403, kind: 'forbidden', message: `The Host header "${host}" is not a host name.` });
  });

  it('ALLOWED_HOSTS adds names, whatever their case, port or trailing dot; punycode or not', () => {
    const policy = readGuardPolicy({ ALLOWED_HOSTS: ' chat.example.com, foo.lan:8080  CHAT2.Example.COM.,bücher.example,' });
    expect(policy.allowedHosts).toEqual(['chat.example.com', 'foo.lan', 'chat2.example.com', 'xn--bcher-kva.example']);
    for (const host of ['chat.example.com', 'Chat.Example.Com:3000', 'chat.example.com.', 'foo.lan:3000', 'chat2.example.com', 'xn--bcher-kva.example']) {
      expect(checkRequest(req({ host }), 'json-post', policy), host).toBeNull();
    }
    expect(checkRequest(req({ host: 'evil.chat.example.com' }), 'json-post', policy)?.status).toBe(403);
  });

  it('a read checks only the Host: its answer is no use to another site, which cannot read it', () => {
    expect(checkRequest(req({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': null }, { method: 'GET' }), 'get', none)).toBeNull();
  });

  it('without a Host header (HTTP/1.0, a request built in code) the URL’s host is checked', () => {
    expect(checkRequest(req({ host: null }, { url: 'http://127.0.0.1:3000/api/chat' }), 'json-post', none)).toBeNull();
    expect(checkRequest(req({ host: null }, { url: 'http://evil.example:3000/api/chat' }), 'json-post', none)?.status).toBe(403);
  });
});

describe('guardRequest', () => {
  it('answers a refusal as JSON in the routes’ error style, and lets the rest through', async () => {
    const refused = guardRequest(new Request('http://localhost:3000/api/chat', { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'text/plain' }, body: '{}' }), 'json-post', {});
    expect(refused!.status).toBe(403);
    expect(refused!.headers.get('cache-control')).toBe('no-store');
    const message = "Cross-site request refused: a page from https://evil.example may not use this app's model routes.";
    expect(await refused!.json()).toEqual({ kind: 'forbidden', status: 403, message, error: message });
    expect(guardRequest(new Request('http://localhost:3000/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 'json-post', {})).toBeNull();
  });
});

describe('request guard: forms (the sign-in page)', () => {
  it('accepts a form or JSON, and nothing else', () => {
    expect(checkRequest(req({ ...own, 'content-type': 'application/x-www-form-urlencoded' }), 'form-post', none)).toBeNull();
    expect(checkRequest(req({ ...own, 'content-type': 'application/json' }), 'form-post', none)).toBeNull();
    expect(checkRequest(req({ ...own, 'content-type': 'text/plain' }), 'form-post', none)?.status).toBe(415);
    expect(checkRequest(req({ ...own, 'content-type': 'multipart/form-data; boundary=x' }), 'form-post', none)?.status).toBe(415);
  });

  it('takes Origin "null" from a same-origin form (no-referrer), only there', () => {
    const nullOwn = { origin: 'null', 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' };
    expect(checkRequest(req(nullOwn), 'form-post', none)).toBeNull();
    expect(checkRequest(req({ ...nullOwn, 'sec-fetch-site': 'cross-site' }), 'form-post', none)?.status).toBe(403);
    expect(checkRequest(req({ ...nullOwn, 'content-type': 'application/json' }), 'json-post', none)?.status).toBe(403);
    // Still a cross-site refusal from another origin.
    expect(checkRequest(req({ ...nullOwn, origin: 'https://evil.example' }), 'form-post', none)?.status).toBe(403);
  });
});
