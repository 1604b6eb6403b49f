import { describe, expect, it } from 'vitest';
import type { ModelsResponse } from '@/lib/providers/listing';
import { testModel } from '@/lib/testing/flowPorts';
import { chooseSummarizer, resolveModel } from './models';

const small = testModel('compat:mock-small', 8_000);
const large = testModel('compat:mock-large', 128_000);
const local = testModel('ollama:llama3', 32_000);
const listing = (over: Partial<ModelsResponse> = {}): ModelsResponse => ({ providers: [], models: [small, large, local], ...over });

describe('the model a session uses', () => {
  it('is the session’s own choice while the server still lists it', () => {
    expect(resolveModel(listing({ defaultModel: large.id }), local.id)).toBe(local);
  });

  it('falls back to the server’s default when the session’s model is gone, then to the first listed', () => {
    expect(resolveModel(listing({ defaultModel: large.id }), 'openai:retired-model')).toBe(large);
    expect(resolveModel(listing({ defaultModel: large.id }), undefined)).toBe(large);
    expect(resolveModel(listing({ defaultModel: 'openai:also-gone' }), 'openai:retired-model')).toBe(small);
    expect(resolveModel(listing(), undefined)).toBe(small);
  });

  it('is none while the listing is not loaded or lists no model', () => {
    expect(resolveModel(undefined, large.id)).toBeUndefined();
    expect(resolveModel(listing({ models: [], defaultModel: large.id }), large.id)).toBeUndefined();
  });
});

describe('the model that writes summaries', () => {
  it('is the one chosen in Settings, ahead of the server’s SUMMARIZER_MODEL', () => {
    expect(chooseSummarizer(listing({ summarizerModel: local.id }), small.id, large)).toBe(small);
  });

  it('is the server’s SUMMARIZER_MODEL when Settings chose none', () => {
    expect(chooseSummarizer(listing({ summarizerModel: local.id }), '', large)).toBe(local);
  });

  it('is the chat model when the chosen one is not listed, none is chosen, or the listing is not loaded', () => {
    expect(chooseSummarizer(listing({ summarizerModel: local.id }), 'openai:retired-model', large)).toBe(large);
    expect(chooseSummarizer(listing(), '', large)).toBe(large);
    expect(chooseSummarizer(undefined, small.id, large)).toBe(large);
    expect(chooseSummarizer(undefined, '', undefined)).toBeUndefined();
  });
});
