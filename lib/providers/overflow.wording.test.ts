import { describe, expect, it } from 'vitest';
import { NOT_OVERFLOW_FIXTURES, OVERFLOW_FIXTURES } from '@/lib/testing/overflowErrors';
import { OVERFLOW_PATTERNS, isContextOverflowText, matchOverflow, overflowNumbers, usageOverflow } from './overflow';

const fixture = (provider: string) => {
  const f = OVERFLOW_FIXTURES.find((x) => x.provider === provider);
  if (!f) throw new Error(`no fixture ${provider}`);
  return f.body;
};

describe('which pattern recognises each real body', () => {
  // The first pattern that matches names the wording; a body that only matched by accident
  // (another provider's phrase) would show up here as the wrong source.
  const EXPECTED: Record<string, string> = {
    'OpenAI (chat, messages only)': 'OpenAI code (also Groq, proxies)',
    'OpenAI (chat, messages + completion)': 'OpenAI code (also Groq, proxies)',
    'OpenAI (Responses API, streamed error event)': 'OpenAI code (also Groq, proxies)',
    'OpenAI (GPT-5 input limit)': 'OpenAI GPT-5 input limit',
    Anthropic: 'Anthropic',
    'Anthropic (input + max_tokens)': 'Anthropic (input + max_tokens)',
    'Google Gemini': 'Google Gemini',
    'Google Gemini (with errors[])': 'Google Gemini',
    'Google Vertex AI': 'Google Gemini',
    'Amazon Bedrock': 'Amazon Bedrock',
    'Amazon Bedrock (Claude)': 'Anthropic',
    xAI: 'xAI',
    'xAI (gRPC)': 'xAI (gRPC code)',
    Groq: 'OpenAI code (also Groq, proxies)',
    Cerebras: 'Groq / OpenAI',
    OpenRouter: 'OpenAI / vLLM / DeepSeek / OpenRouter',
    DeepSeek: 'OpenAI / vLLM / DeepSeek / OpenRouter',
    'vLLM (OpenAI server)': 'OpenAI / vLLM / DeepSeek / OpenRouter',
    'vLLM (engine)': 'vLLM (engine)',
    'vLLM (engine, multimodal)': 'vLLM (engine)',
    'vLLM (V1)': 'vLLM (engine)',
    'llama.cpp server': 'llama.cpp server',
    'llama.cpp server (older)': 'llama.cpp server',
    'LM Studio': 'LM Studio',
    'GitHub Copilot': 'GitHub Copilot',
    'GitHub Copilot (older, no code)': 'GitHub Copilot',
    'Ollama (cloud models)': 'Ollama',
    'Hugging Face TGI': 'Hugging Face TGI',
    'Hugging Face Inference API': 'Hugging Face TGI',
    'Kimi (Moonshot)': 'Kimi (Moonshot)',
    'MiniMax (Anthropic-compatible endpoint)': 'MiniMax',
    Mistral: 'Mistral',
    'Together AI': 'Together AI',
  };

  it('every fixture is listed here', () => {
    expect(OVERFLOW_FIXTURES.map((f) => f.provider).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s → %s', (provider, source) => {
    expect(matchOverflow(fixture(provider))?.source).toBe(source);
  });
});

describe('each alternative of a pattern, in the wording its provider uses', () => {
  it.each([
    // The Responses API's message as the SDK hands it over, without the code beside it.
    ['OpenAI Responses API', 'Your input exceeds the context window of this model. Please adjust your input and try again.'],
    ['Groq / OpenAI', 'Please reduce the length of the messages.'],
    // Markdown backticks are optional: gateways that relay the message as plain text drop them.
    ['Anthropic (input + max_tokens)', 'input length and max_tokens exceed context limit: 199759 + 8192 > 200000, decrease input length or max_tokens and try again'],
    ['Anthropic (input + max_tokens)', 'input length and `max_tokens` exceed context limit: 195000 + 64000 > 200000'],
    ['Google Gemini', 'The input token count 25270 exceeds the maximum number of tokens allowed 4000.'],
    ['llama.cpp server', 'request (8500 tokens) exceeds the available context size (8192 tokens), try increasing it'],
    ['llama.cpp server', 'exceed_context_size_error'],
    ['llama.cpp server', 'Context size has been exceeded.'],
    ['LM Studio', 'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input'],
    ['GitHub Copilot', '{"error":{"message":"Request Failed: 400","code":"model_max_prompt_tokens_exceeded"}}'],
    // Ollama has said it with and without "max" (other clients' overflow lists carry both).
    ['Ollama', 'prompt too long; exceeded context length by 100 tokens'],
    ['Ollama', 'prompt too long; exceeded max context length by 100918 tokens'],
    ['Hugging Face TGI', 'Input validation error: `inputs` must have less than 32768 tokens. Given: 40211'],
    ['vLLM (engine)', 'ValueError: The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.'],
  ])('%s: %s', (source, text) => {
    expect(matchOverflow(text)?.source).toBe(source);
  });

  it('the numbers in a pattern are numbers: the same phrase with a word in their place is not an overflow', () => {
    for (const text of [
      "This model's maximum context length is unknown tokens.",
      'prompt is too long: many tokens > 200000 maximum',
      'prompt is too long: 208310 tokens > unknown maximum',
      'The input token count (many) exceeds the maximum number of tokens allowed (131072).',
      "This model's maximum prompt length is unknown.",
      'prompt token count of many exceeds the limit of 128000',
      'prompt token count of 514673 exceeds the limit of unknown',
      'Prompt contains many tokens, too large for model with unknown maximum context length',
      'Input validation error: `inputs` must have less than many tokens.',
      'ValueError: Prompt length of many is longer than the maximum model length of 4096.',
    ])
      expect(isContextOverflowText(text), text).toBe(false);
  });

  it('a vLLM length message needs both the prompt length and the window it exceeds, in one sentence', () => {
    expect(isContextOverflowText('ValueError: Prompt length of 5016 is longer than the maximum model length of 4096.')).toBe(true);
    expect(isContextOverflowText('ValueError: Prompt length of 5016 is longer than allowed. See the maximum model length docs.')).toBe(false);
  });
});

describe('near misses: wording that is not a window overflow', () => {
  const overflow = fixture('Anthropic');

  it.each([
    ['rate limit', 'Rate limit reached for requests'],
    ['rate_limit code', 'rate_limit_exceeded'],
    ['rate-limit', 'You are being rate-limited.'],
    ['the SDK error class', 'litellm.RateLimitError: AnthropicException'],
    ['tokens per min', 'Limit 30000 tokens per min'],
    ['tokens per minute', 'would exceed 20,000 input tokens per minute'],
    ['tokens per day', 'Limit 500000 tokens per day'],
    ['TPM', 'Requested 31538, TPM limit 30000'],
    ['per minute', '50 requests per minute allowed'],
    ['please wait', 'Too many tokens, please wait before trying again.'],
    ['throttling', 'ThrottlingException: Too many requests'],
    ['quota', 'You exceeded your current quota, please check your plan and billing details.'],
  ])('%s next to overflow wording makes it a limit to wait out: %s', (_what, limit) => {
    expect(isContextOverflowText(`${limit}\n${overflow}`)).toBe(false);
    expect(isContextOverflowText(overflow)).toBe(true);
  });

  it.each(NOT_OVERFLOW_FIXTURES.map((f) => [f.provider, f.body] as const))('%s matches no pattern', (_name, body) => {
    expect(OVERFLOW_PATTERNS.filter((p) => p.re.test(body)).map((p) => p.source)).toEqual([]);
  });

  it('nothing is an overflow when there is no text', () => {
    expect(matchOverflow('')).toBeNull();
    expect(isContextOverflowText('')).toBe(false);
  });
});

describe('overflowNumbers on each provider that states them', () => {
  it.each([
    ['GitHub Copilot', { requested: 514673, limit: 128000 }],
    ['GitHub Copilot (older, no code)', { requested: 93854, limit: 90000 }],
    ['OpenRouter', { requested: 5028244, limit: 200000 }],
    ['DeepSeek', { requested: 131134, limit: 131072 }],
    ['Google Gemini (with errors[])', { requested: 1200293, limit: 1048576 }],
    ['Amazon Bedrock (Claude)', { requested: 227255, limit: 200000 }],
    ['Amazon Bedrock', {}],
    ['Kimi (Moonshot)', {}],
  ])('%s → %j', (provider, numbers) => {
    expect(overflowNumbers(fixture(provider))).toEqual(numbers);
  });

  it('reads Gemini counts with or without parentheses', () => {
    expect(overflowNumbers('The input token count 25270 exceeds the maximum number of tokens allowed 4000.')).toEqual({ requested: 25270, limit: 4000 });
    expect(overflowNumbers('The input token count (25270) exceeds the maximum number of tokens allowed 4000.')).toEqual({ requested: 25270, limit: 4000 });
    expect(overflowNumbers('The input token count 25270 exceeds the maximum number of tokens allowed (4000).')).toEqual({ requested: 25270, limit: 4000 });
  });

  it('reads llama.cpp counts from the compact JSON the server sends', () => {
    const compact = '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9154,"n_ctx":8192}}';
    expect(overflowNumbers(compact)).toEqual({ requested: 9154, limit: 8192 });
  });

  it('says nothing when no numbers are stated', () => {
    expect(overflowNumbers('Context size has been exceeded.')).toEqual({});
    expect(overflowNumbers('')).toEqual({});
  });
});

describe('usageOverflow: a figure that is not a count says nothing', () => {
  it('an infinite or NaN report, or a window that is not positive, is no evidence', () => {
    expect(usageOverflow(Number.POSITIVE_INFINITY, 8192)).toBe(false);
    expect(usageOverflow(9000, Number.NaN)).toBe(false);
    expect(usageOverflow(9000, -1)).toBe(false);
    expect(usageOverflow(0, 8192)).toBe(false);
    expect(usageOverflow(131072, 131072)).toBe(true);
  });
});
