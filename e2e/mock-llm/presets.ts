/**
 * Error responses the mock can play by name. The bodies are the providers'
 * real wording (see the source notes), so the app's error classification is
 * exercised against what it will meet in production, not against our guesses.
 */

export interface ErrorSpec {
  status: number;
  /** JSON value (sent as JSON) or a string (sent as text/plain). */
  body: unknown;
  headers?: Record<string, string>;
}

export type PresetName = '401' | '429' | '500' | 'overflow' | 'broken';

export const ERROR_PRESETS: Record<Exclude<PresetName, 'broken'>, ErrorSpec> = {
  // OpenAI's invalid key body as quoted in chatanywhere/GPT_API_free#62 (key masked by OpenAI, shortened here).
  '401': {
    status: 401,
    body: {
      error: {
        message: 'Incorrect API key provided: sk-mock***********************wjh3. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    },
  },
  // OpenAI's TPM rate limit as quoted in BuilderIO/micro-agent#86, wrapped in the API's error envelope.
  '429': {
    status: 429,
    headers: { 'retry-after': '2', 'x-ratelimit-reset-tokens': '644ms' },
    body: {
      error: {
        message: 'Rate limit reached for gpt-4o in organization org-uOtiSEwvUnroadaOnJJquBEC on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms. Visit https://platform.openai.com/account/rate-limits to learn more.',
        type: 'tokens',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
  },
  // OpenAI's generic server error as quoted in ai-genie/chatgpt-vscode#100.
  '500': {
    status: 500,
    body: {
      error: {
        message: 'The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error. (Please include the request ID e5c949c8ec2c86be225544e5eefcbe4d in your email.)',
        type: 'server_error',
        param: null,
        code: null,
      },
    },
  },
  // OpenAI's context overflow as quoted in crewAIInc/crewAI-examples#121.
  overflow: {
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  },
};

/** The same overflow body with the numbers of an actual request, for the mock's own window check. */
export function overflowBody(window: number, requested: number): ErrorSpec {
  return {
    status: 400,
    body: {
      error: {
        message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  };
}
