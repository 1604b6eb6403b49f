import { describe, expect, it } from 'vitest';
import { parseModelId, tokenizerFor } from './tokenizerFor';

describe('tokenizerFor', () => {
  it('maps OpenAI models to their own encodings, exactly', () => {
    for (const m of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'o1', 'o3-mini', 'o4-mini', 'chatgpt-4o-latest', 'gpt-oss-120b']) {
      expect(tokenizerFor(`openai:${m}`), m).toMatchObject({ encoding: 'o200k_base', exact: true, family: 'gpt-o200k', imageFormula: 'openai' });
    }
    for (const m of ['gpt-4', 'gpt-4-turbo', 'gpt-4-0613', 'gpt-3.5-turbo', 'gpt-3.5-turbo-16k']) {
      expect(tokenizerFor(`openai:${m}`), m).toMatchObject({ encoding: 'cl100k_base', exact: true, family: 'gpt-cl100k' });
    }
  });

  it('treats an unknown OpenAI model as o200k but not exact', () => {
    expect(tokenizerFor('openai:some-future-model')).toMatchObject({ encoding: 'o200k_base', exact: false });
  });

  it('estimates Claude, Gemini and local models with o200k and their own image formulas', () => {
    expect(tokenizerFor('anthropic:claude-sonnet-4-5')).toMatchObject({ encoding: 'o200k_base', exact: false, family: 'claude', imageFormula: 'anthropic' });
    expect(tokenizerFor('google:gemini-2.5-pro')).toMatchObject({ exact: false, family: 'gemini', imageFormula: 'google' });
    expect(tokenizerFor('ollama:llama3.1:8b')).toMatchObject({ exact: false, family: 'local', model: 'llama3.1:8b' });
    expect(tokenizerFor('compat:qwen2.5-coder-32b')).toMatchObject({ exact: false, family: 'local' });
  });

  it('counts an OpenAI model behind a compatible endpoint exactly', () => {
    expect(tokenizerFor('compat:openai/gpt-4o')).toMatchObject({ provider: 'compat', encoding: 'o200k_base', exact: true });
  });

  it('guesses the provider of a bare model name', () => {
    expect(parseModelId('claude-opus-4-5')).toEqual({ provider: 'anthropic', model: 'claude-opus-4-5' });
    expect(parseModelId('gpt-4o')).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(parseModelId('mistral-large')).toEqual({ provider: 'compat', model: 'mistral-large' });
  });
});
