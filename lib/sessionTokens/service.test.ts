import { describe, expect, it } from 'vitest';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { DEFAULT_COMPACTION_SETTINGS, type AssistantMessage, type MessageEntry, type SessionEntry } from '@/lib/session/types';
import { TreeBuilder } from '@/lib/testing/builder';
import { readFixture } from '@/lib/testing/fixtures';
import { generateSession } from '@/lib/testing/generate';
import { anthropicImageTokens } from '@/lib/tokens/mediaTokens';
import { imageSizeFromBase64 } from '@/lib/tokens/imageSize';
import { MESSAGE_OVERHEAD, REPLY_PRIMING } from '@/lib/tokens/entryText';
import { calibratedRequestTokens } from '@/lib/tokens/calibration';
import { createTokensService } from './service';

const clone = <T>(x: T): T => structuredClone(x);

describe('tokens API (direct)', () => {
  it('counts a path once, hands the caches back, and reuses them on the next load', async () => {
    const api = createTokensService();
    const { entries } = generateSession({ seed: 4, entries: 400, model: 'openai:gpt-4o' });
    const first = await api.loadPath('s', clone(entries), { model: 'openai:gpt-4o' });
    expect(first.computed).toHaveLength(entries.length);
    expect(first.length).toBe(400);
    expect(first.figure.source).toBe('estimate');
    expect(first.figure.approximate).toBe(false);
    const sum = first.computed.reduce((n, c) => n + c.tokens.o200k, 0);
    expect(first.figure.tokens).toBe(sum + REPLY_PRIMING);

    const cached = entries.map((e, i) => ({ ...e, tokens: first.computed[i]!.tokens }));
    const second = await api.loadPath('s', cached, { model: 'openai:gpt-4o' });
    expect(second.computed).toEqual([]);
    expect(second.figure).toEqual(first.figure);
  });

  it('appends, updates a streamed reply and calibrates a non-OpenAI model from its usage', async () => {
    const api = createTokensService();
    const b = new TreeBuilder();
    const u1 = b.user('Explain the context meter in two sentences.');
    const compaction = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 10 };
    await api.loadPath('s', [clone(u1)], { model: 'anthropic:claude-sonnet-4-5', systemPrompt: 'You are terse.', compaction });

    const streaming = b.assistant('The meter', undefined, { status: 'streaming' });
    const step1 = api.append('s', clone(streaming));
    expect(step1.computed).toEqual([]); // a streaming reply is not cached
    expect(step1.figure).toMatchObject({ source: 'estimate', approximate: true });

    const done: MessageEntry = { ...streaming, message: { ...(streaming.message as AssistantMessage), content: [{ type: 'text', text: 'The meter shows tokens.' }], status: 'complete', usage: { input: 40, cacheRead: 0, output: 9 } } };
    const step2 = api.update('s', clone(done));
    expect(step2.computed.map((c) => c.id)).toEqual([done.id]);
    expect(step2.calibration).toMatchObject({ samples: 1 });
    expect(step2.figure).toMatchObject({ source: 'usage+estimate', usageTokens: 49, tokens: 49 });
    // The sample compared 40 with our count of that request: system prompt, user message, reply priming.
    const counted = o200k.encode('You are terse.').length + MESSAGE_OVERHEAD + o200k.encode('Explain the context meter in two sentences.').length + MESSAGE_OVERHEAD + REPLY_PRIMING;
    expect(calibratedRequestTokens(counted, step2.calibration)).toBeCloseTo(40, 0);
    // Updating again with the same usage does not count the sample twice.
    expect(api.update('s', clone(done)).calibration).toBeUndefined();

    const u2 = b.user('And the cut point?');
    const step3 = api.append('s', clone(u2));
    expect(step3.figure.tokens).toBe(49 + Math.round(step2.calibration!.factor * step3.computed[0]!.tokens.o200k));
    // Each update says where a compaction with the session's settings would cut, as compaction does: the new
    // question alone holds fewer than 10 tokens, so the reply before it stays too (the turn is split there).
    expect(step3.cut).toMatchObject({ entryId: done.id, turnStartIndex: 0, reason: null });
    expect(step3.cut!.keptTokens).toBeGreaterThanOrEqual(10);
    expect((await api.prepareCompaction('s', compaction))?.prep.firstKeptEntryId).toBe(done.id);
    expect(api.calibration('anthropic:claude-sonnet-4-5')).toEqual(step2.calibration);
  });

  it('follows leaf switches by replacing only the differing tail', async () => {
    const api = createTokensService();
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    const a1 = b.assistant('r1');
    const u2 = b.user('q2 on the first branch, quite a bit longer than the other one');
    b.at(a1);
    const u2b = b.user('q2b');
    await api.loadPath('s', clone([u1, a1, u2]), { model: 'openai:gpt-4o' });
    const moved = api.switchPath('s', a1.id, clone([u2b]));
    expect(moved.leafId).toBe(u2b.id);
    const fresh = await createTokensService().loadPath('t', clone([u1, a1, u2b]), { model: 'openai:gpt-4o' });
    expect(moved.figure).toEqual(fresh.figure);
    expect(api.pathTokens('s').ids).toEqual([u1.id, a1.id, u2b.id]);
  });

  it('switches to cl100k for GPT-4 and recounts', async () => {
    const api = createTokensService();
    const u = new TreeBuilder().user('Tokenizers differ: naïve café, 这个函数, fooBarBaz().');
    const a = await api.loadPath('s', [clone(u)], { model: 'openai:gpt-4o' });
    const b = await api.setOptions('s', { model: 'openai:gpt-4' });
    const text = 'Tokenizers differ: naïve café, 这个函数, fooBarBaz().';
    expect(a.figure.tokens).toBe(o200k.encode(text).length + MESSAGE_OVERHEAD + REPLY_PRIMING);
    expect(b.figure.tokens).toBe(cl100k.encode(text).length + MESSAGE_OVERHEAD + REPLY_PRIMING);
    expect(b.computed[0]!.tokens.cl100k).toBe(cl100k.encode(text).length + MESSAGE_OVERHEAD);
  });

  it('prices the 1 MB screenshot of the Claude Code log by its pixels, not its base64', async () => {
    let entry: SessionEntry | null = null;
    for (const line of readFixture('claudeLog').split('\n')) {
      if (!line.includes('"image"')) continue;
      const raw = JSON.parse(line) as { uuid: string; message: { content: { type: string; text?: string; source?: { data: string; media_type: string } }[] } };
      entry = {
        type: 'message',
        id: raw.uuid,
        parentId: null,
        timestamp: 0,
        message: {
          role: 'user',
          content: raw.message.content.map((c) =>
            c.type === 'image' ? { type: 'image' as const, mimeType: c.source!.media_type, data: c.source!.data } : { type: 'text' as const, text: c.text ?? '' },
          ),
        },
      };
    }
    expect(entry).not.toBeNull();
    const image = (entry as MessageEntry).message.content.find((p) => p.type === 'image')!;
    const data = (image as { data: string }).data;
    const { width, height } = imageSizeFromBase64(data)!;
    const api = createTokensService();
    const loaded = await api.loadPath('img', [entry!], { model: 'anthropic:claude-sonnet-4-5' });
    const textTokens = loaded.computed[0]!.tokens.o200k;
    expect(loaded.figure.tokens).toBe(REPLY_PRIMING + textTokens + anthropicImageTokens(width, height));
    expect(loaded.figure.tokens).toBeLessThan(data.length / 4 / 100);
  });
});

describe('calibration across reloads', () => {
  it('does not sample the same reply twice when a fresh worker loads the session again', async () => {
    const b = new TreeBuilder();
    const u1 = b.user('Explain the context meter in two sentences.');
    const reply = b.assistant('The meter shows tokens.', undefined, { usage: { input: 40, output: 9 }, status: 'complete' });
    const u2 = b.user('And the cut point?');
    const reply2 = b.assistant('It keeps recent tokens.', undefined, { usage: { input: 70, output: 7 }, status: 'complete' });
    const model = 'anthropic:claude-sonnet-4-5';

    const first = createTokensService();
    await first.loadPath('s', [clone(u1)], { model });
    const c1 = first.append('s', [clone(reply), clone(u2), clone(reply2)]).calibration!;
    expect(c1.samples).toBe(2);

    // A reload: a new worker gets the stored calibration, then the same path again.
    const second = createTokensService();
    await second.loadPath('s', [clone(u1)], { model, calibration: c1 });
    const again = second.append('s', [clone(reply), clone(u2), clone(reply2)]);
    expect(again.calibration).toBeUndefined();
    expect(second.calibration(model)).toEqual(c1);

    // A new reply after the reload is still new evidence.
    const u3 = b.user('Thanks');
    const reply3 = b.assistant('You are welcome.', undefined, { usage: { input: 90, output: 5 }, status: 'complete' });
    const next = second.append('s', [clone(u3), clone(reply3)]).calibration!;
    expect(next.samples).toBe(3);
  });

  it('a new system prompt counts at once: replies reported under the old one stop anchoring the figure until the next reply', async () => {
    const api = createTokensService();
    const b = new TreeBuilder();
    const u1 = b.user('Explain the context meter in two sentences.');
    const reply = b.assistant('The meter shows tokens.', undefined, { usage: { input: 40, output: 9 }, status: 'complete' });
    const model = 'openai:gpt-4o';
    const before = await api.loadPath('s', [clone(u1), clone(reply)], { model });
    expect(before.figure).toMatchObject({ source: 'usage+estimate', tokens: 49 });

    const prompt = 'You are a ship captain. Answer every question briefly, in plain words, and never use jargon of any kind.';
    const after = await api.loadPath('s', [clone(u1), clone(reply)], { model, systemPrompt: prompt });
    // The usage of 49 measured a request without this prompt: the figure is counted again, the prompt in it.
    expect(after.figure.source).toBe('estimate');
    const unreported: MessageEntry = { ...(reply as MessageEntry), message: { ...(reply.message as AssistantMessage), usage: undefined } };
    const withoutPrompt = (await createTokensService().loadPath('x', [clone(u1), unreported], { model })).figure.tokens;
    expect(after.figure.tokens).toBe(withoutPrompt + o200k.encode(prompt).length + MESSAGE_OVERHEAD);

    // A reply under the new prompt measures it: usage anchors the figure again.
    const u2 = b.user('And the cut point?');
    const reply2 = b.assistant('It keeps recent tokens.', undefined, { usage: { input: 120, output: 7 }, status: 'complete' });
    expect(api.append('s', [clone(u2), clone(reply2)]).figure).toMatchObject({ source: 'usage+estimate', usageTokens: 127 });
    // The same prompt again changes nothing.
    expect((await api.loadPath('s', [clone(u1), clone(reply), clone(u2), clone(reply2)], { model, systemPrompt: prompt })).figure).toMatchObject({ source: 'usage+estimate', usageTokens: 127 });
  });
});
