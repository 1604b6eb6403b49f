import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allFixtureFiles, FIXTURES_DIR } from '@/lib/testing/fixtures';
import { buildSessionContext } from '@/lib/session/context';
import { exportJsonl } from './export/jsonl';
import { importText } from './import';
import { importStream } from './stream';
import { asAsync, expectWellFormed, prng, randomChunks, sampleSnapshot, withoutSessionId } from '@/lib/testing/formatChecks';
import { ImportError, type ImportResult } from './types';

/**
 * Damaged input must give either a clean result (well-formed sessions) or an
 * ImportError with a message — never another exception, never both.
 */

type Outcome = { ok: ImportResult } | { error: ImportError };

function attempt(text: string, fileName?: string): Outcome {
  try {
    return { ok: importText(text, { fileName }) };
  } catch (err) {
    if (!(err instanceof ImportError)) throw new Error(`non-ImportError ${String(err)} for input ${JSON.stringify(text.slice(0, 200))}`, { cause: err });
    expect(err.message.length).toBeGreaterThan(5);
    return { error: err };
  }
}

function expectClean(o: Outcome): void {
  if ('error' in o) return;
  for (const s of o.ok.sessions) {
    const tree = expectWellFormed(s);
    buildSessionContext(tree, s.meta.leafId);
  }
}

const TEXTS: [string, string][] = [...allFixtureFiles().map((f): [string, string] => [f, readFileSync(join(FIXTURES_DIR, f), 'utf8')]), ['sample.jsonl', exportJsonl(sampleSnapshot())]];
const NOISE = '{}[]",:\\\n0aZ \u0000é🌍';

function mutations(text: string, seed: number): { kind: string; text: string }[] {
  const rand = prng(seed);
  const at = () => Math.floor(rand() * text.length);
  const out: { kind: string; text: string }[] = [];
  for (let i = 0; i < 6; i++) out.push({ kind: 'truncate', text: text.slice(0, at()) });
  for (let i = 0; i < 6; i++) {
    const chars = text.split('');
    const flips = 1 + Math.floor(rand() * 8);
    for (let k = 0; k < flips; k++) chars[at()] = NOISE[Math.floor(rand() * NOISE.length)]!;
    out.push({ kind: 'flip', text: chars.join('') });
  }
  for (let i = 0; i < 4; i++) {
    const lines = text.split('\n');
    const drop = Math.floor(rand() * lines.length);
    lines.splice(drop, 1 + Math.floor(rand() * 3));
    out.push({ kind: 'drop lines', text: lines.join('\n') });
  }
  for (let i = 0; i < 2; i++) {
    const lines = text.split('\n');
    const a = Math.floor(rand() * lines.length);
    const b = Math.floor(rand() * lines.length);
    [lines[a], lines[b]] = [lines[b]!, lines[a]!];
    out.push({ kind: 'swap lines', text: lines.join('\n') });
  }
  out.push({ kind: 'duplicate', text: text + '\n' + text });
  return out;
}

describe('fuzz: damaged fixtures', () => {
  it.each(TEXTS)('%s: every mutation gives a clean result or an ImportError', (name, text) => {
    let errors = 0;
    for (const m of mutations(text, name.length * 31 + 7)) {
      const o = attempt(m.text, name);
      expectClean(o);
      if ('error' in o) errors++;
    }
    // Truncation alone breaks most files: the fuzzer must be exercising the error paths.
    expect(errors).toBeGreaterThan(0);
  });

  it.each(TEXTS.filter(([n]) => n.endsWith('.jsonl') || n.endsWith('.json')))('%s: streaming agrees with the text reader on damaged input', async (name, text) => {
    const rand = prng(name.length);
    for (const m of mutations(text, name.length * 13 + 1).slice(0, 8)) {
      const o = attempt(m.text, name);
      let streamed: Outcome;
      try {
        streamed = { ok: await importStream(asAsync(randomChunks(m.text, rand, 50_000)), { fileName: name }) };
      } catch (err) {
        expect(err, `stream threw ${String(err)}`).toBeInstanceOf(ImportError);
        streamed = { error: err as ImportError };
      }
      expect('ok' in streamed).toBe('ok' in o);
      if ('ok' in streamed && 'ok' in o) expect(streamed.ok.sessions.map(withoutSessionId)).toStrictEqual(o.ok.sessions.map(withoutSessionId));
    }
  });
});

describe('fuzz: garbage', () => {
  const rand = prng(42);
  const garbage = [
    '',
    ' ',
    '\uFEFF',
    'null',
    '42',
    '"str"',
    '[]',
    '{}',
    '[1,2,3]',
    '[null]',
    '[{}]',
    '{"type":"session"}',
    '{"type":"session","format":"longctx-session","version":1}',
    '{"type":"session"}\n{"type":"message"}',
    '{"type":"session"}\n{"type":"message","message":null}',
    '{"type":"session"}\n{"type":"message","message":{"role":"assistant","content":"x","usage":{"input":"NaN"}}}',
    '{"type":"session"}\n{"type":"compaction","firstKeptEntryIndex":-5,"summary":"s"}',
    '{"uuid":"a","parentUuid":"a","type":"user","message":{"content":"loop"}}\n{"uuid":"b","type":"user"}',
    '{"uuid":"a","type":"assistant","message":{"content":[null,1,{"type":"tool_use"}]}}\n{"uuid":"b","parentUuid":"a","type":"user","message":{"content":[{"type":"tool_result","content":{"x":1}}]}}',
    '[{"mapping":{"a":{"parent":"a","children":["a"],"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":[1]}}}}}]',
    '[{"mapping":{"a":{"parent":"b","message":{}},"b":{"parent":"a","message":{}}},"current_node":"a"}]',
    '{"conversationId":"c","messages":[{"messageId":"x","parentMessageId":"x","text":1}]}',
    '{"conversationId":"c","messages":[{"messageId":"x","children":[{"messageId":"x"}]}]}',
    '{"history":[null,{"role":"assistant","action":5},{"role":"user","content":[{"text":1}]}],"info":[]}',
    '{"history":"nope","trajectory":[]}',
    'PK\u0003\u0004garbage',
    '['.repeat(100_000),
    '{"a":'.repeat(50_000),
  ];
  for (let i = 0; i < 40; i++) {
    let s = '';
    const n = Math.floor(rand() * 300);
    for (let k = 0; k < n; k++) s += String.fromCharCode(Math.floor(rand() * 0x3000));
    garbage.push(s);
  }

  it('never throws anything but an ImportError, with or without file names', () => {
    for (const g of garbage) {
      for (const name of [undefined, 'x.jsonl', 'conversations.json', 'a.traj', 'b.zip']) expectClean(attempt(g, name));
    }
  });

  it('gives streaming the same guarantee', async () => {
    for (const g of garbage.slice(0, 30)) {
      try {
        const r = await importStream(asAsync(randomChunks(g, prng(g.length), 7)));
        for (const s of r.sessions) expectWellFormed(s);
      } catch (err) {
        expect(err, String(err)).toBeInstanceOf(ImportError);
      }
    }
  });
});
