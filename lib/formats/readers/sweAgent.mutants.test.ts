import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { expectWellFormed, type Raw, thrown } from '@/lib/testing/formatChecks';
import { ImportError } from '../types';
import { readSweAgent } from './sweAgent';

/**
 * Properties of the SWE-agent reader that the mutation run found unstated (issue 18): the prose of
 * an assistant turn, blank and missing actions, observations as results, content given as a list,
 * records of other roles, the title read from the task's ISSUE line, the original id, a trajectory
 * without `info` or without history, and the refusals. Each test reads the real trajectory or an
 * edited copy of it built inside the test.
 */
const text = readFixture('sweTraj');
const real = JSON.parse(text) as Raw & { history: Raw[]; info: Raw };
const copy = () => structuredClone(real);
const read = (doc: unknown, opts: Parameters<typeof readSweAgent>[1] = {}) => readSweAgent(JSON.stringify(doc), opts).sessions[0]!;
const entry = (entries: SessionEntry[], id: string) => entries.find((e) => e.id === id);
const texts = (e: SessionEntry | undefined) => (e?.type === 'message' ? e.message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : []);

describe('SWE-agent reader: assistant turns', () => {
  it('a turn with a thought and an action says the thought without its trailing blank lines, then calls bash with the action', () => {
    const s = readSweAgent(text).sessions[0]!;
    const turns = real.history.flatMap((h, i) => (h.role === 'assistant' ? [[h, i] as const] : []));
    expect(turns.length).toBeGreaterThan(0);
    for (const [h, i] of turns) {
      const thought = h.thought as string;
      const action = h.action as string;
      expect(/\s$/.test(thought)).toBe(true);
      const e = entry(s.entries, `swe-${i}`);
      expect(e?.type === 'message' && e.message).toEqual({
        role: 'assistant',
        content: [
          { type: 'text', text: thought.replace(/\s+$/, '') },
          { type: 'toolCall', id: `swe-${i}-action`, name: 'bash', arguments: { command: action.endsWith('\n') ? action.slice(0, -1) : action } },
        ],
        stopReason: 'toolUse',
      });
    }
  });

  it('each observation answers the call before it, under the name bash, with its text, not as an error', () => {
    const s = readSweAgent(text).sessions[0]!;
    let checked = 0;
    real.history.forEach((h, i) => {
      if (h.role !== 'user' || real.history[i - 1]?.role !== 'assistant') return;
      checked++;
      expect(entry(s.entries, `swe-${i}`)).toMatchObject({
        type: 'message',
        parentId: `swe-${i - 1}`,
        message: { role: 'toolResult', toolCallId: `swe-${i - 1}-action`, toolName: 'bash', content: [{ type: 'text', text: h.content }], isError: false },
      });
    });
    expect(checked).toBeGreaterThan(0);
  });

  it('without a thought the content is the prose; without an action the content is the prose and nothing is called', () => {
    const doc = copy();
    doc.history.push(
      { role: 'assistant', content: 'Listing the files.\n', action: 'ls\n' },
      { role: 'user', content: 'a.py' },
      { role: 'assistant', content: 'All done.', thought: 'Maybe done?' },
    );
    const n = real.history.length;
    const s = read(doc);
    expectWellFormed(s);
    expect(entry(s.entries, `swe-${n}`)).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: 'Listing the files.' }, { type: 'toolCall', arguments: { command: 'ls' } }], stopReason: 'toolUse' } });
    expect(entry(s.entries, `swe-${n + 1}`)).toMatchObject({ message: { role: 'toolResult', toolCallId: `swe-${n}-action` } });
    expect(entry(s.entries, `swe-${n + 2}`)).toMatchObject({ message: { role: 'assistant', content: [{ type: 'text', text: 'All done.' }], stopReason: 'stop' } });
  });

  it('a blank action calls nothing, and a blank thought adds no text, so the user message after it stays a user message', () => {
    const doc = copy();
    doc.history.push({ role: 'assistant', content: '```\n\n```', thought: ' \n', action: '\n' }, { role: 'user', content: 'Go on.' });
    const n = real.history.length;
    const s = read(doc);
    expect(entry(s.entries, `swe-${n}`)).toMatchObject({ message: { role: 'assistant', content: [], stopReason: 'stop' } });
    expect(entry(s.entries, `swe-${n + 1}`)).toMatchObject({ message: { role: 'user', content: [{ type: 'text', text: 'Go on.' }] } });
  });

  it('a message of role tool after an action is its result too', () => {
    const doc = copy();
    doc.history.push({ role: 'assistant', content: 'x', thought: 'Look.', action: 'cat a' }, { role: 'tool', content: 'contents' });
    const n = real.history.length;
    const s = read(doc);
    expect(entry(s.entries, `swe-${n + 1}`)).toMatchObject({ message: { role: 'toolResult', toolCallId: `swe-${n}-action`, toolName: 'bash', content: [{ type: 'text', text: 'contents' }] } });
  });
});

describe('SWE-agent reader: content and other records', () => {
  it('content given as a list joins its strings and text parts by line breaks; other parts read as empty lines, missing content as empty text', () => {
    const doc = copy();
    doc.history.push({ role: 'user', content: ['first', { type: 'text', text: 'second' }, 7, null, { type: 'image_url' }] }, { role: 'user' });
    const n = real.history.length;
    const s = read(doc);
    expect(texts(entry(s.entries, `swe-${n}`))).toEqual(['first\nsecond\n\n\n']);
    expect(texts(entry(s.entries, `swe-${n + 1}`))).toEqual(['']);
  });

  it('skips history items that are not objects, keeping the others under their own positions', () => {
    const doc = copy();
    doc.history.splice(3, 0, null as unknown as Raw, 'text' as unknown as Raw);
    const s = read(doc);
    expectWellFormed(s);
    expect(entry(s.entries, 'swe-3')).toBeUndefined();
    expect(entry(s.entries, 'swe-4')).toBeUndefined();
    expect(entry(s.entries, 'swe-5')).toMatchObject({ parentId: 'swe-2', message: { role: 'assistant' } });
    expect(s.entries).toHaveLength(readSweAgent(text).sessions[0]!.entries.length);
  });

  it('a record of another role is a note named after it, shown by its first 200 characters; one without a role is "unknown"', () => {
    const doc = copy();
    const long = `Budget: ${'y'.repeat(300)}`;
    doc.history.push({ role: 'critic', content: long }, { content: 'no role' });
    const n = real.history.length;
    const s = read(doc);
    expect(entry(s.entries, `swe-${n}`)).toMatchObject({ type: 'custom', customType: 'swe-agent:critic', data: { role: 'critic', content: long }, display: long.slice(0, 200) });
    expect(entry(s.entries, `swe-${n + 1}`)).toMatchObject({ type: 'custom', customType: 'swe-agent:unknown', data: { content: 'no role' }, display: 'no role' });
  });

  it('without info the session ends at the last history item', () => {
    const doc: Raw = copy();
    delete doc.info;
    const s = read(doc);
    expect(s.entries.some((e) => e.type === 'custom' && e.customType === 'swe-agent:info')).toBe(false);
    expect(s.meta.leafId).toBe(`swe-${real.history.length - 1}`);
  });

  it('reads the real trajectory without warnings', () => {
    expect(readSweAgent(text).warnings).toEqual([]);
  });
});

describe('SWE-agent reader: title and ids', () => {
  it('without a file name the title is the line after ISSUE: in the task, not in the demonstration', () => {
    const task = real.history.find((h) => h.role === 'user' && h.is_demo !== true)!.content as string;
    const demo = real.history.find((h) => h.is_demo === true)!.content as string;
    const after = (t: string) => t.split('ISSUE:\n')[1]!.split('\n')[0]!;
    expect(after(task)).not.toBe(after(demo));
    expect(readSweAgent(text).sessions[0]!.meta.title).toBe(after(task));
  });

  it('a later plain user message does not replace the task as the title', () => {
    const doc = copy();
    doc.history.splice(3, 0, { role: 'user', content: 'ISSUE:\nSomething else' });
    const task = real.history[2]!.content as string;
    expect(read(doc).meta.title).toBe(task.split('ISSUE:\n')[1]!.split('\n')[0]);
  });

  it('the ISSUE line may have spaces after the colon; a task without one gives its own first line; no task gives the default', () => {
    const spaced = copy();
    spaced.history[2]!.content = 'Task:\nISSUE:  \nFix the widget\nmore';
    expect(read(spaced).meta.title).toBe('Fix the widget');
    const plain = copy();
    plain.history[2]!.content = 'Fix the gadget please';
    expect(read(plain).meta.title).toBe('Fix the gadget please');
    const none = copy();
    none.history = none.history.filter((h) => h.role !== 'user');
    expect(read(none).meta.title).toBe('SWE-agent trajectory');
  });

  it('the original id is the file name, or the environment instance id when there is one', () => {
    expect(typeof real.environment).toBe('string');
    expect(readSweAgent(text, { fileName: 'dir/pydicom__pydicom-1458.traj' }).sessions[0]!.meta.source).toMatchObject({ format: 'swe-agent', originalId: 'pydicom__pydicom-1458' });
    const doc = { ...copy(), environment: { instance_id: 'pydicom__pydicom-1458-b' } };
    expect(read(doc, { fileName: 'run.traj' }).meta.source?.originalId).toBe('pydicom__pydicom-1458-b');
  });

  it('an empty history without info is an empty undated session at the import time', () => {
    const s = read({ history: [] }, { importedAt: 1_700_000_000_000 });
    expect(s.entries).toEqual([]);
    expect(s.meta).toMatchObject({ createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000, leafId: null, title: 'SWE-agent trajectory' });
  });
});

describe('SWE-agent reader: refusals', () => {
  it('refuses invalid JSON, a JSON value that is not an object, and an object without a history list, naming the format', () => {
    for (const bad of ['{"history": [', '[{"history": []}]', '{"history": {"0": {}}}', '{"trajectory": []}']) {
      const err = thrown(() => readSweAgent(bad));
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).format).toBe('swe-agent');
    }
    expect((thrown(() => readSweAgent('{"trajectory": []}')) as Error).message).toBe('Expected a SWE-agent trajectory: a JSON object with a "history" list.');
  });
});
