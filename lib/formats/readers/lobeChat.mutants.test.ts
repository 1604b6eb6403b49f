import { describe, expect, it } from 'vitest';
import type { SessionEntry, SessionSnapshot } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readLobeChat } from './lobeChat';

/**
 * Properties of the LobeChat reader that the mutation run found unstated (issue 18): time order of
 * messages written out of order (numbers and ISO strings), replies following their parent past
 * other messages, the leaf when the last message has a child, titles (trimmed, a real topic title,
 * the first non-blank prompt, the fallbacks), the model of the path, undated groups, errors that are
 * not objects, usage with only output, and the format named by every refusal. Each test adds
 * messages, in the export's own shape, to a copy of the real export.
 */
type State = { messages: Raw[]; sessions: Raw[]; topics: Raw[]; files?: unknown[] };
const text = readFixture('lobeChatExport');
const real = JSON.parse(text) as Raw & { state: State };
const last = real.state.messages.at(-1)!;
const t0 = (last.createdAt as number) + 1000;

const withState = (edit: (s: State) => void): Raw => {
  const d = structuredClone(real);
  edit(d.state);
  return d;
};
/** Messages of the inbox (no agent in the sessions list) in a topic of their own. */
const inTopic = (topicId: string | undefined, msgs: Raw[]) => msgs.map((m, i) => ({ sessionId: 'inbox', ...(topicId ? { topicId } : {}), createdAt: t0 + i, extra: {}, ...m }));
const read = (doc: unknown) => readLobeChat(JSON.stringify(doc));
const sessionOf = (sessions: SessionSnapshot[], originalId: string) => sessions.find((s) => s.meta.source?.originalId === originalId)!;
const entry = (sessions: SessionSnapshot[], id: string): SessionEntry | undefined => sessions.flatMap((s) => s.entries).find((e) => e.id === id);

describe('LobeChat reader: order and links', () => {
  it('orders messages written out of order by their time, given as epoch milliseconds or ISO text', () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const doc = withState((s) => {
      s.messages.push(
        ...inTopic('order', [
          { id: 'm3', role: 'assistant', content: 'three', createdAt: t0 + 3000 },
          { id: 'm1', role: 'assistant', content: 'one', createdAt: iso(t0 + 1000) },
          { id: 'm4', role: 'user', content: 'four', createdAt: iso(t0 + 4000) },
          { id: 'm0', role: 'user', content: 'zero', createdAt: iso(t0) },
          { id: 'm2', role: 'user', content: 'two', createdAt: t0 + 2000 },
        ]),
      );
    });
    const s = sessionOf(read(doc).sessions, 'inbox/order');
    expectWellFormed(s);
    expect(s.entries.map((e) => [e.id, e.parentId, e.timestamp])).toEqual([
      ['m0', null, t0],
      ['m1', 'm0', t0 + 1000],
      ['m2', 'm1', t0 + 2000],
      ['m3', 'm2', t0 + 3000],
      ['m4', 'm3', t0 + 4000],
    ]);
    expect(s.meta.leafId).toBe('m4');
  });

  it('a reply follows the message its parentId names, past the messages between; a parentId naming no message is ignored', () => {
    const doc = withState((s) => {
      s.messages.push(
        ...inTopic('branch', [
          { id: 'q', role: 'user', content: 'question' },
          { id: 'a1', role: 'assistant', content: 'first answer', parentId: 'q' },
          { id: 'a2', role: 'assistant', content: 'second answer', parentId: 'q' },
          { id: 'f', role: 'user', content: 'follow-up', parentId: 'elsewhere' },
        ]),
      );
    });
    const s = sessionOf(read(doc).sessions, 'inbox/branch');
    expect(s.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['q', null],
      ['a1', 'q'],
      ['a2', 'q'],
      ['f', 'a2'],
    ]);
  });

  it('when the last message in time has a child written before it, the leaf is the newest leaf', () => {
    const doc = withState((s) => {
      s.messages.push(
        ...inTopic('skew', [
          { id: 'x', role: 'user', content: 'start' },
          { id: 'y', role: 'assistant', content: 'answer to z', parentId: 'z' },
          { id: 'z', role: 'user', content: 'question, stamped late', parentId: 'x' },
        ]),
      );
    });
    const s = sessionOf(read(doc).sessions, 'inbox/skew');
    expectWellFormed(s);
    expect(s.entries.find((e) => e.id === 'y')?.parentId).toBe('z');
    expect(s.meta.leafId).toBe('y');
  });

  it('a message whose id repeats an earlier one’s, stamped last, keeps the earlier message as the current position, not a newer sibling', () => {
    const doc = withState((s) => {
      s.messages.push(
        ...inTopic('repeat', [
          { id: 'p', role: 'user', content: 'pick one', createdAt: t0 },
          { id: 'first', role: 'assistant', content: 'the answer in view', parentId: 'p', createdAt: t0 + 1000 },
          { id: 'other', role: 'assistant', content: 'regenerated', parentId: 'p', createdAt: t0 + 2000 },
          { id: 'first', role: 'user', content: 'a copy with the same id', createdAt: t0 + 3000 },
        ]),
      );
    });
    const s = sessionOf(read(doc).sessions, 'inbox/repeat');
    expect(s.meta.leafId).toBe('first');
  });

  it('an empty topicId and no topicId are the same conversation', () => {
    const doc = withState((s) => {
      s.messages.push(
        { id: 'e1', role: 'user', content: 'hello', sessionId: 'agent-x', topicId: '', createdAt: t0 },
        { id: 'e2', role: 'assistant', content: 'hi', parentId: 'e1', sessionId: 'agent-x', createdAt: t0 + 1000 },
      );
    });
    const mine = read(doc).sessions.filter((s) => s.entries.some((e) => e.id === 'e1' || e.id === 'e2'));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.entries.map((e) => e.id)).toEqual(['e1', 'e2']);
  });

  it('refuses replies whose parents name each other, as not a tree of the LobeChat format', () => {
    const doc = withState((s) => {
      s.messages.push(...inTopic('loop', [{ id: 'l1', role: 'user', content: 'a', parentId: 'l2' }, { id: 'l2', role: 'assistant', content: 'b', parentId: 'l1' }]));
    });
    const err = thrown(() => read(doc));
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).format).toBe('lobechat');
  });

  it('a message without sessionId belongs to the inbox', () => {
    const doc = withState((s) => {
      s.messages.push({ id: 'stray', role: 'user', content: 'where am I', createdAt: t0 });
    });
    expect(sessionOf(read(doc).sessions, 'inbox/no-topic').entries.map((e) => e.id)).toEqual(['stray']);
  });
});

describe('LobeChat reader: message fields', () => {
  it('a prompt without a files list has its text only', () => {
    const doc = withState((s) => {
      s.messages.push(...inTopic('nofiles', [{ id: 'p', role: 'user', content: 'just text' }]));
    });
    const p = entry(read(doc).sessions, 'p');
    expect(p?.type === 'message' && p.message.content).toEqual([{ type: 'text', text: 'just text' }]);
  });

  it('reads usage with only the output count, an error that is a number, and a provider without model as no model', () => {
    const doc = withState((s) => {
      s.messages.push(
        ...inTopic('fields', [
          { id: 'q', role: 'user', content: 'hi' },
          { id: 'o', role: 'assistant', content: 'x', extra: { usage: { outputTokens: 5 } } },
          { id: 'n', role: 'assistant', content: '', error: 42 },
          { id: 'pm', role: 'assistant', content: 'y', extra: { fromProvider: 'openai' } },
        ]),
      );
    });
    const r = read(doc);
    expect(entry(r.sessions, 'o')).toMatchObject({ message: { usage: { input: 0, output: 5 } } });
    expect(entry(r.sessions, 'n')).toMatchObject({ message: { stopReason: 'error', errorMessage: '42' } });
    const pm = entry(r.sessions, 'pm');
    expect(pm?.type === 'message' && pm.message.role === 'assistant' && 'model' in pm.message).toBe(false);
  });

  it('skips session, topic and file rows that are not objects', () => {
    const doc = withState((s) => {
      (s.sessions as unknown[]).push(null);
      (s.topics as unknown[]).push(null, { title: 'no id' });
      s.files = [null, { name: 'no id' }];
    });
    const r = read(doc);
    expect(r.sessions).toHaveLength(readLobeChat(text).sessions.length);
  });
});

describe('LobeChat reader: titles and session fields', () => {
  it('a topic with a title of its own is the title, trimmed', () => {
    const doc = withState((s) => {
      s.topics.push({ id: 'trip', title: '  Trip planning  ', sessionId: 'inbox', createdAt: t0 });
      s.messages.push(...inTopic('trip', [{ id: 'p', role: 'user', content: 'Plan a trip' }]));
    });
    expect(sessionOf(read(doc).sessions, 'trip').meta.title).toBe('Trip planning');
  });

  it('a default topic takes the first prompt with text, past replies and blank prompts', () => {
    const doc = withState((s) => {
      s.topics.push({ id: 'dt', title: 'Default Topic', sessionId: 'inbox', createdAt: t0 });
      s.messages.push(...inTopic('dt', [{ id: 'g', role: 'assistant', content: 'Welcome!' }, { id: 'b', role: 'user', content: '   ' }, { id: 'p', role: 'user', content: 'Plan a trip' }]));
    });
    expect(sessionOf(read(doc).sessions, 'dt').meta.title).toBe('Plan a trip');
  });

  it('without any prompt a default topic keeps its name and a group without topic is a LobeChat conversation', () => {
    const doc = withState((s) => {
      s.topics.push({ id: 'dt', title: 'Default Topic', sessionId: 'inbox', createdAt: t0 });
      s.messages.push(...inTopic('dt', [{ id: 'g', role: 'assistant', content: 'Welcome!' }]), ...inTopic(undefined, [{ id: 'h', role: 'assistant', content: 'Hello?' }]));
    });
    const r = read(doc);
    expect(sessionOf(r.sessions, 'dt').meta.title).toBe('Default Topic');
    expect(sessionOf(r.sessions, 'inbox/no-topic').meta.title).toBe('LobeChat conversation');
  });

  it('the model of each real conversation is the last reply’s provider and model', () => {
    const r = readLobeChat(text);
    const byTopic = new Map<string, Raw>();
    for (const m of real.state.messages) if (m.role === 'assistant') byTopic.set(m.topicId as string, m);
    expect(byTopic.size).toBe(r.sessions.length);
    for (const m of byTopic.values()) {
      const extra = m.extra as Raw;
      expect(r.sessions.find((x) => x.entries.some((e) => e.id === m.id))?.meta.model).toBe(`${extra.fromProvider as string}:${extra.fromModel as string}`);
    }
  });

  it('the real conversations are dated and give no warning; a group without any time is undated', () => {
    const r = readLobeChat(text);
    expect(r.warnings).toEqual([]);
    for (const s of r.sessions) expect('undated' in s.meta).toBe(false);
    const doc = withState((s) => {
      s.messages.push({ id: 'nt', role: 'user', content: 'when?', sessionId: 'inbox', topicId: 'timeless' });
    });
    expect(sessionOf(read(doc).sessions, 'inbox/timeless').meta.undated).toBe(true);
  });
});

describe('LobeChat reader: refusals', () => {
  it('names the format when the text is not JSON and when the export holds no messages', () => {
    for (const bad of ['{"state": {', '{"state": {"sessions": []}}']) {
      const err = thrown(() => readLobeChat(bad));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('lobechat');
    }
  });
});
