import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSessionContext } from '@/lib/session/context';
import type { ChatMessage, SessionSnapshot } from '@/lib/session/types';
import { allFixtureFiles, FIXTURES_DIR, readFixture } from '@/lib/testing/fixtures';
import { detectFormat } from '../detect';
import { importText } from '../import';
import { readPi } from '../readers/pi';
import { rawRecords, sampleSnapshot, type Raw } from '@/lib/testing/formatChecks';
import { exportPiV3 } from './piV3';

/** What the model sees, in the terms pi keeps: roles, text, tool calls and results (an image pi cannot embed is a placeholder in both). */
function modelView(s: SessionSnapshot) {
  return buildSessionContext(s.entries, s.meta.leafId).items.map((i) => {
    if (i.kind !== 'message') return { kind: i.kind, summary: 'summary' in i ? i.summary : '' };
    const m: ChatMessage = i.message;
    return {
      role: m.role,
      parts: m.content.map((p) => (p.type === 'text' ? p.text : p.type === 'toolCall' ? `call ${p.id} ${p.name} ${JSON.stringify(p.arguments)}` : p.type === 'thinking' ? `thinking ${p.thinking}` : p.type === 'image' ? (p.data ? `image ${p.data.length}` : '[image]') : p.type)),
      ...(m.role === 'toolResult' ? { callId: m.toolCallId, isError: m.isError } : {}),
    };
  });
}

describe('exportPiV3', () => {
  it('writes a pi v3 file: a header, then entries with id, parentId and ISO times, the current position last', () => {
    const [s] = importText(readFixture('claudeLog'), { fileName: 'x.jsonl' }).sessions;
    const text = exportPiV3(s!);
    expect(detectFormat(text)).toBe('pi');
    const recs = rawRecords(text).map((r) => r.rec);
    expect(recs[0]).toMatchObject({ type: 'session', version: 3, cwd: s!.meta.cwd, timestamp: new Date(s!.meta.createdAt).toISOString() });
    const entries = recs.slice(1);
    expect(entries).toHaveLength(s!.entries.length);
    const seen = new Set<string>();
    for (const e of entries) {
      expect(typeof e.id).toBe('string');
      if (e.parentId !== null) expect(seen.has(e.parentId as string)).toBe(true);
      expect(e.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      seen.add(e.id as string);
    }
    expect(entries.at(-1)!.id).toBe(s!.meta.leafId);
  });

  it.each(allFixtureFiles())('%s: read back by the pi reader, the model sees the same conversation', (file) => {
    for (const s of importText(readFileSync(join(FIXTURES_DIR, file), 'utf8'), { fileName: file }).sessions.slice(0, 5)) {
      const back = readPi(exportPiV3(s)).sessions[0]!;
      expect(back.meta.leafId).toBe(s.meta.leafId);
      expect(back.entries.map((e) => [e.id, e.parentId]).sort()).toEqual(s.entries.map((e) => [e.id, e.parentId]).sort());
      expect(modelView(back)).toEqual(modelView(s));
    }
  });

  it('writes the summary in effect (an edit applied) and an undone compaction outside the context', () => {
    const s = sampleSnapshot();
    const recs = rawRecords(exportPiV3(s)).map((r) => r.rec as Raw);
    // On the sample's active path the branch summary b1 was edited (s1).
    expect(recs.find((r) => r.id === 'b1')).toMatchObject({ type: 'branch_summary', summary: 'Edited summary', fromId: 'a2' });
    expect(recs.find((r) => r.id === 's1')).toMatchObject({ type: 'custom', customType: 'longctx:summary_revision', data: { targetId: 'b1', action: 'edit' } });
    expect(recs.find((r) => r.id === 'a1')).toMatchObject({ message: { provider: 'openai', model: 'gpt-4o', usage: { input: 100, cacheRead: 5, cost: { total: 0.01 } } } });
    const undone = { ...s, entries: [...s.entries, { id: 'z', parentId: 'a2', timestamp: 1_700_000_000_100, type: 'summary_revision' as const, targetId: 'c1', action: 'undo' as const }], meta: { ...s.meta, leafId: 'z' } };
    const c1 = rawRecords(exportPiV3(undone)).map((r) => r.rec as Raw).find((r) => r.id === 'c1');
    expect(c1).toMatchObject({ type: 'custom', customType: 'longctx:undone_compaction' });
  });
});
