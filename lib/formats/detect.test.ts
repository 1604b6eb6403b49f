import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allFixtureFiles, FIXTURES, FIXTURES_DIR, readFixture } from '@/lib/testing/fixtures';
import { DETECT_HEAD_CHARS, detectFormat, scanHead } from './detect';
import { exportJsonl } from './export/jsonl';
import { sampleSnapshot } from '@/lib/testing/formatChecks';
import { ImportError, type DetectedFormat } from './types';

const EXPECTED: Record<keyof typeof FIXTURES, DetectedFormat> = {
  piV1: 'pi',
  claudeViewer: 'claude-code',
  claudeLog: 'claude-code',
  chatgptTree: 'chatgpt',
  chatgptExport: 'chatgpt',
  librechatTree: 'librechat',
  sweTraj: 'swe-agent',
  codexRollout: 'codex',
  geminiSession: 'gemini-cli',
  claudeAiExport: 'claude-ai',
  lobeChatExport: 'lobechat',
  openWebUiChat: 'open-webui',
  piBeforeCompaction: 'pi',
  piSession: 'pi',
  claudeCodemie: 'claude-code',
  claudeSpotterManual: 'claude-code',
  claudeSpotter258: 'claude-code',
  claudeSpotter846: 'claude-code',
  claudeSpotterOrphan: 'claude-code',
  claudeCompactAgent946: 'claude-code',
  claudeCompactAgentE1f: 'claude-code',
  claudeCompactAgentF46: 'claude-code',
  claudeCompactAgentFff: 'claude-code',
  claudeHookTemplar: 'claude-code',
  claudeHookAttio: 'claude-code',
};

describe('detectFormat', () => {
  it('covers every fixture file', () => {
    expect(allFixtureFiles().sort()).toEqual(Object.values(FIXTURES).sort());
  });

  it.each(Object.entries(EXPECTED) as [keyof typeof FIXTURES, DetectedFormat][])('%s → %s, from the first 64 KB, with or without a file name', (name, format) => {
    const head = readFixture(name).slice(0, DETECT_HEAD_CHARS);
    expect(detectFormat(head, FIXTURES[name])).toBe(format);
    expect(detectFormat(head)).toBe(format);
    expect(detectFormat(head, 'renamed.txt')).toBe(format);
  });

  it.each(Object.keys(EXPECTED) as (keyof typeof FIXTURES)[])('%s: not fooled by a BOM and leading whitespace', (name) => {
    const head = readFixture(name).slice(0, DETECT_HEAD_CHARS);
    expect(detectFormat('\uFEFF\n\n  \t' + head)).toBe(EXPECTED[name]);
    expect(detectFormat('\r\n' + head.replace(/\n/g, '\r\n'))).toBe(EXPECTED[name]);
  });

  it('detects the native format and zip archives', () => {
    expect(detectFormat(exportJsonl(sampleSnapshot()))).toBe('native');
    expect(detectFormat('PK\u0003\u0004rest')).toBe('archive');
  });

  it('detects ChatGPT from a head cut before "mapping" and an empty export', () => {
    expect(detectFormat('[{"title": "x", "create_time": 1700000000.5, "upd')).toBe('chatgpt');
    expect(detectFormat('[]\n')).toBe('chatgpt');
  });

  it('detects the log form of Gemini CLI sessions, Open WebUI and Claude.ai export arrays, and Codex rollouts from before the envelope', () => {
    const gemini = JSON.parse(readFixture('geminiSession')) as { messages: unknown[] };
    const { messages, ...meta } = gemini;
    expect(detectFormat([meta, ...messages].map((r) => JSON.stringify(r)).join('\n'))).toBe('gemini-cli');
    const webui = JSON.parse(readFixture('openWebUiChat')) as { title: string };
    expect(detectFormat(JSON.stringify([{ id: 'c1', user_id: 'u', title: webui.title, chat: webui }]))).toBe('open-webui');
    expect(detectFormat(JSON.stringify((JSON.parse(readFixture('claudeAiExport')) as unknown[]).slice(3, 4)))).toBe('claude-ai');
    const oldRollout = '{"id":"0a1b","timestamp":"2025-05-01T10:00:00.000Z","instructions":null}\n{"record_type":"state"}\n{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}\n';
    expect(detectFormat(oldRollout, 'sessions/2025/05/01/rollout-2025-05-01T10-00-00-0a1b.jsonl')).toBe('codex');
    expect(() => detectFormat(oldRollout, 'notes.jsonl')).toThrow(ImportError);
  });

  it('tells an array of Claude Code records (a hook’s chat.json) from the export arrays', () => {
    const line = { parentUuid: null, isSidechain: false, sessionId: 's1', type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1', timestamp: '2025-07-22T07:59:33.195Z' };
    expect(detectFormat(JSON.stringify([line], null, 2))).toBe('claude-code');
    expect(detectFormat(JSON.stringify([{ type: 'summary', summary: 'A title', leafUuid: 'u0' }, line], null, 2))).toBe('claude-code');
    // Claude.ai conversations carry a uuid too, but no record type: with chat_messages or without, never Claude Code.
    const conversation = { uuid: 'c1', name: 'n', created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z', chat_messages: [] };
    expect(detectFormat(JSON.stringify([conversation]))).toBe('claude-ai');
    const { chat_messages: _m, ...bare } = conversation;
    expect(() => detectFormat(JSON.stringify([bare]))).toThrow(ImportError);
    expect(() => detectFormat(JSON.stringify([{ ...line, type: 'conversation' }]))).toThrow(ImportError);
  });

  it('is not fooled by format keys inside message text', () => {
    const tricky = JSON.stringify({ note: '"mapping": {} "history": [] {"type":"session"}', other: 1 });
    expect(() => detectFormat(tricky)).toThrow(ImportError);
  });

  it('explains an unknown or empty file and lists the supported formats', () => {
    expect(() => detectFormat('')).toThrow(/empty/);
    expect(() => detectFormat('  \n ')).toThrow(/empty/);
    try {
      detectFormat('hello world', 'notes.txt');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ImportError);
      const msg = (err as Error).message;
      expect(msg).toMatch(/notes\.txt/);
      for (const f of ['ChatGPT', 'Claude Code', 'pi', 'LibreChat', 'SWE-agent', 'longctx session']) expect(msg).toContain(f);
    }
  });
});

describe('scanHead', () => {
  it('reads the top-level keys of the first record, not nested ones', () => {
    const s = scanHead('{"type":"session","n":3,"o":{"type":"inner"},"b":true}\n{"x":1}\n');
    expect(s.keys.get('type')).toBe('session');
    expect(s.keys.get('n')).toBe(3);
    expect(s.keys.has('o')).toBe(true);
    expect(s.keys.get('b')).toBe(true);
    expect(s.moreLines).toBe(true);
    expect(s.multiline).toBe(false);
  });

  it('tells a pretty-printed document from JSON lines', () => {
    const doc = readFileSync(join(FIXTURES_DIR, FIXTURES.librechatTree), 'utf8');
    expect(scanHead(doc).multiline).toBe(true);
  });
});
