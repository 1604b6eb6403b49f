/**
 * Recognising "the conversation no longer fits the model's context window".
 *
 * Providers report it in free text, each in its own words, and the app reacts
 * by compacting and retrying, so a miss means a stuck conversation and a false
 * alarm means a needless compaction. The patterns below are anchored on the
 * parts of each message that say *input/prompt exceeds the window*, not on
 * loose words like "tokens" or "too long", because those also appear in rate
 * limits ("tokens per min"), output-limit errors ("max_tokens is too large")
 * and payload limits ("string too long"). Real bodies for every pattern live in
 * lib/testing/overflowErrors.ts with their sources.
 */

export interface OverflowPattern {
  /** Who sends this wording (for tests and docs). */
  source: string;
  re: RegExp;
}

export const OVERFLOW_PATTERNS: OverflowPattern[] = [
  // OpenAI Chat Completions / Responses error code; Groq and many proxies reuse it.
  { source: 'OpenAI code (also Groq, proxies)', re: /\bcontext_length_exceeded\b/i },
  // OpenAI, vLLM, DeepSeek, OpenRouter ("This endpoint's maximum context length is …").
  { source: 'OpenAI / vLLM / DeepSeek / OpenRouter', re: /maximum context length is \d+ tokens/i },
  { source: 'OpenAI Responses API', re: /exceeds the context window/i },
  { source: 'OpenAI GPT-5 input limit', re: /input tokens exceed the configured limit/i },
  { source: 'Anthropic', re: /prompt is too long: \d+ tokens? > \d+/i },
  { source: 'Anthropic (input + max_tokens)', re: /input length and `?max_tokens`? exceed context limit/i },
  // Vertex AI says it without the count ("The input token count exceeds the maximum number of tokens allowed 1048576.").
  { source: 'Google Gemini', re: /input token count (?:\(?\d+\)? )?exceeds the maximum number of tokens/i },
  { source: 'Amazon Bedrock', re: /input is too long for requested model/i },
  { source: 'xAI', re: /maximum prompt length is \d+/i },
  { source: 'xAI (gRPC code)', re: /\binput_too_large\b/i },
  { source: 'Groq / OpenAI', re: /please reduce the length of the messages/i },
  { source: 'llama.cpp server', re: /exceeds the available context size|\bexceed_context_size_error\b|context size has been exceeded/i },
  { source: 'LM Studio', re: /when context the overflows|tokens to keep from the initial prompt is greater than the context length/i },
  { source: 'GitHub Copilot', re: /prompt token count of \d+ exceeds the limit of \d+|\bmodel_max_prompt_tokens_exceeded\b/i },
  { source: 'Mistral', re: /too large for model with \d+ maximum context length/i },
  { source: 'Ollama', re: /prompt too long; exceeded (?:max )?context length/i },
  { source: 'vLLM (engine)', re: /prompt \(?(?:total )?length(?: of)? ?\d+\)? is (?:longer|too long)[^.]*(?:maximum model length|context length)/i },
  { source: 'Together AI', re: /is longer than the model's context length/i },
  { source: 'Hugging Face TGI', re: /`inputs` tokens \+ `max_new_tokens` must be <=|`inputs` must have less than \d+ tokens/i },
  { source: 'Kimi (Moonshot)', re: /exceeded model token limit/i },
  { source: 'MiniMax', re: /context window exceeds limit/i },
];

/**
 * Wording that looks like an overflow but is a throughput or quota limit:
 * compacting does not help, waiting does.
 */
const RATE_LIMIT_WORDING = /rate.?limit|tokens per (?:min|minute|day)|\bTPM\b|per minute|please wait|throttl|quota/i;

export function matchOverflow(text: string): OverflowPattern | null {
  if (!text) return null;
  if (RATE_LIMIT_WORDING.test(text)) return null;
  return OVERFLOW_PATTERNS.find((p) => p.re.test(text)) ?? null;
}

export function isContextOverflowText(text: string): boolean {
  return matchOverflow(text) !== null;
}

/**
 * Silent overflow: some servers (Ollama, z.ai, some proxies) do not refuse an
 * oversized prompt; they truncate it and answer. The only trace is a reported
 * input size at or above the window. `reportedInput` should include cached
 * tokens, since they occupy the window just the same.
 */
export function usageOverflow(reportedInput: number | undefined, contextWindow: number | undefined): boolean {
  if (reportedInput === undefined || contextWindow === undefined) return false;
  if (!Number.isFinite(reportedInput) || !Number.isFinite(contextWindow) || contextWindow <= 0) return false;
  return reportedInput >= contextWindow;
}

/** Pull "N tokens" / "limit M" numbers out of an overflow message when they are there. */
export function overflowNumbers(text: string): { requested?: number; limit?: number } {
  const pairs: [RegExp, 'requested-limit' | 'limit-requested'][] = [
    [/(\d+) tokens? > (\d+)/, 'requested-limit'],
    [/input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)/i, 'requested-limit'],
    [/maximum context length is (\d+) tokens\. However, (?:you requested|your messages resulted in) (?:about )?(\d+)/i, 'limit-requested'],
    [/maximum prompt length is (\d+) but the request contains (\d+)/i, 'limit-requested'],
    [/prompt token count of (\d+) exceeds the limit of (\d+)/i, 'requested-limit'],
    [/Prompt contains (\d+) tokens.*?model with (\d+) maximum context length/i, 'requested-limit'],
  ];
  for (const [re, order] of pairs) {
    const m = re.exec(text);
    if (m) {
      const a = Number(m[1]);
      const b = Number(m[2]);
      return order === 'requested-limit' ? { requested: a, limit: b } : { requested: b, limit: a };
    }
  }
  const ctx = /"n_prompt_tokens"\s*:\s*(\d+)\s*,\s*"n_ctx"\s*:\s*(\d+)/.exec(text);
  if (ctx) return { requested: Number(ctx[1]), limit: Number(ctx[2]) };
  return {};
}
