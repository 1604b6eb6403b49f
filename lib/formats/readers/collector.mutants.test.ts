import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { OpenWebUiCollector, readOpenWebUi } from './openWebUi';

/**
 * The chat-app collector's rules the mutation run found unstated (issue 18): sessions handed over
 * while reading are not handed over again at the end, and an export without empty conversations
 * reports no skips. The real Open WebUI chat stands for any element.
 */
const chat = JSON.parse(readFixture('openWebUiChat')) as unknown;

describe('conversation collector', () => {
  it('hands over what it converted so far once; the end holds only what came after', () => {
    const c = new OpenWebUiCollector({});
    c.add(chat);
    const first = c.take();
    expect(first.map((s) => s.meta.title)).toEqual([(chat as { title: string }).title]);
    expect(c.take()).toEqual([]);
    c.add(structuredClone(chat));
    const end = c.finish('h');
    expect(end.sessions).toHaveLength(1);
    expect(end.sessions[0]!.meta.source?.hash).toBe('h');
    expect(end.skipped).toEqual([]);
  });

  it('an export whose chats all hold messages skips nothing', () => {
    expect(readOpenWebUi(JSON.stringify([chat, chat])).skipped).toEqual([]);
  });
});
