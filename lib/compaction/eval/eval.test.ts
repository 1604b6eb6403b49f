import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { countText, entryTokens, loadSessions } from '@/lib/testing/compactionData';
import { FIXTURES, type FixtureName } from '@/lib/testing/fixtures';
import { probesFor } from './probes';
import { formatReport } from './report';
import { evaluateSubject, type EvalRow } from './run';

/**
 * The targets of issue 17 ("Measured"), asserted on the eval harness itself:
 * the extractive summary names every modified file and ≥ 90 % of the user
 * requests of the pi span while compressing it by ≥ 95 %, and no compaction
 * the app would append grows the context, on any fixture.
 */

const deps = { countText, tokensOf: entryTokens, window: 128_000 };

function longestMessagePath(name: FixtureName): SessionEntry[] {
  return loadSessions(name)
    .map((s) => s.path.filter((e) => e.type === 'message'))
    .sort((a, b) => b.length - a.length)[0]!;
}

describe('npm run eval: targets', () => {
  it('pi: extractive names 100 % of the modified files and ≥ 90 % of the user requests, compressing ≥ 95 %', async () => {
    const [row] = await evaluateSubject({ name: 'piV1', path: longestMessagePath('piV1') }, deps);
    expect(row!.mode).toBe('extractive');
    expect(row!.coverage.artifact.total).toBeGreaterThan(10);
    expect(row!.coverage.artifact.hit).toBe(row!.coverage.artifact.total);
    expect(row!.coverage.recall.total).toBeGreaterThan(60);
    expect(row!.coverage.recall.hit / row!.coverage.recall.total).toBeGreaterThanOrEqual(0.9);
    expect(row!.coverage.continuation).toEqual({ hit: 1, total: 1 });
    expect(row!.compression).toBeGreaterThanOrEqual(0.95);
    expect(row!.appended).toBe(true);
    expect(row!.contextAfter).toBeLessThan(row!.window);
  });

  it('every fixture: no appended compaction grows the context, and every appended summary is smaller than its span', async () => {
    const rows: EvalRow[] = [];
    for (const name of Object.keys(FIXTURES) as FixtureName[]) rows.push(...(await evaluateSubject({ name, path: longestMessagePath(name) }, deps)));
    expect(rows).toHaveLength(Object.keys(FIXTURES).length);
    const measured = rows.filter((r) => !r.skipped);
    expect(measured.length).toBeGreaterThanOrEqual(8);
    for (const r of measured) {
      if (r.appended) {
        expect(r.contextAfter, r.fixture).toBeLessThan(r.contextBefore);
        expect(r.summaryTokens, r.fixture).toBeLessThan(r.spanTokens);
      } else expect(r.contextAfter, r.fixture).toBe(r.contextBefore);
    }
    // The coding-agent transcripts are all compacted.
    for (const name of ['piV1', 'claudeLog', 'claudeViewer', 'codexRollout', 'geminiSession', 'sweTraj']) expect(rows.find((r) => r.fixture === name)!.appended, name).toBe(true);
    expect(formatReport(rows)).toContain('Appended compactions that grow the context: 0.');
  });
});

describe('probes', () => {
  const call = (name: string, args: Record<string, unknown>): SessionEntry => ({
    type: 'message',
    id: name,
    parentId: null,
    timestamp: 0,
    message: { role: 'assistant', content: [{ type: 'toolCall', id: name, name, arguments: args }] },
  });

  it('files come from writing tools and patch headers, not from viewing', () => {
    const probes = probesFor([
      call('str_replace_editor', { command: 'view', path: '/repo/seen.py' }),
      call('str_replace_editor', { command: 'str_replace', path: '/repo/changed.py' }),
      call('apply_patch', { input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n*** Add File: src/b.ts\n*** End Patch' }),
      call('Read', { file_path: '/repo/read.ts' }),
    ]);
    expect(probes.filter((p) => p.kind === 'artifact').map((p) => p.expect[0])).toEqual(['/repo/changed.py', 'src/a.ts', 'src/b.ts']);
  });

  it('pi: one recall probe per user message, the last one is the continuation', () => {
    const path = longestMessagePath('piV1');
    const probes = probesFor(path);
    const users = path.filter((e) => e.type === 'message' && e.message.role === 'user' && e.message.content.some((p) => p.type === 'text' && p.text.trim()));
    expect(probes.filter((p) => p.kind === 'recall')).toHaveLength(users.length);
    expect(probes.filter((p) => p.kind === 'continuation')).toHaveLength(1);
  });
});
