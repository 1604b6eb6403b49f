/**
 * Error bodies returned by real providers, copied verbatim from public bug
 * reports (the URL says where). Test data only. Where a report shows a Python
 * dict repr or a log line instead of raw JSON, that is what is kept: the text
 * is what our classifier sees after the SDK extracts it.
 */

export interface ErrorFixture {
  provider: string;
  source: string;
  status?: number;
  body: string;
}

export const OVERFLOW_FIXTURES: ErrorFixture[] = [
  {
    provider: 'OpenAI (chat, messages only)',
    source: 'https://github.com/chathub-dev/chathub/issues/126',
    status: 400,
    body: `{"error":{"message":"This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
  },
  {
    provider: 'OpenAI (chat, messages + completion)',
    source: 'https://github.com/mckaywrigley/chatbot-ui/issues/102',
    status: 400,
    body: `{
  "error": {
    "message": "This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    "type": "invalid_request_error",
    "param": "messages",
    "code": "context_length_exceeded"
  }
}`,
  },
  {
    provider: 'OpenAI (Responses API, streamed error event)',
    source: 'https://github.com/dyad-sh/dyad/issues/1672',
    body: `{"error":{"type":"error","sequence_number":2,"error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model. Please adjust your input and try again.","param":"input"}}}`,
  },
  {
    provider: 'OpenAI (GPT-5 input limit)',
    source: 'https://github.com/cline/cline/issues/5474',
    status: 400,
    body: '400 Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages.',
  },
  {
    provider: 'Anthropic',
    source: 'https://github.com/anthropics/claude-code/issues/12186',
    status: 400,
    body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_011CVQe1dLrGNMJyE1ghG1av"}`,
  },
  {
    provider: 'Anthropic (input + max_tokens)',
    source: 'https://github.com/continuedev/continue/issues/6080',
    status: 400,
    body: '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}',
  },
  {
    provider: 'Google Gemini',
    source: 'https://github.com/google-gemini/gemini-cli/issues/4118',
    status: 400,
    body: `{"error":{"code":400,"message":"The input token count (132478) exceeds the maximum number of tokens allowed (131072).","status":"INVALID_ARGUMENT"}}`,
  },
  {
    provider: 'Google Gemini (with errors[])',
    source: 'https://github.com/google-gemini/gemini-cli/issues/6678',
    status: 400,
    body: `[{
    "error": {
      "code": 400,
      "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
      "errors": [
        {
          "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
          "domain": "global",
          "reason": "badRequest"
        }
      ],
      "status": "INVALID_ARGUMENT"
    }
  }
  ]`,
  },
  {
    // As the client printed it: Vertex AI's wording leaves out the input count.
    provider: 'Google Vertex AI',
    source: 'https://github.com/warpdotdev/warp/issues/15662',
    status: 400,
    body: 'Vertex AI API error: Error 400, Message: The input token count exceeds the maximum number of tokens allowed 1048576., Status: INVALID_ARGUMENT, Details: []',
  },
  {
    provider: 'Amazon Bedrock',
    source: 'https://github.com/aws-samples/assessment-generator/issues/2',
    status: 400,
    body: 'ValidationException: Input is too long for requested model.',
  },
  {
    provider: 'Amazon Bedrock (Claude)',
    source: 'https://github.com/aaif-goose/goose/pull/7504',
    status: 400,
    body: 'The model returned the following errors: prompt is too long: 227255 tokens > 200000 maximum',
  },
  {
    provider: 'xAI',
    source: 'https://github.com/cline/cline/issues/3120',
    status: 400,
    body: "This model's maximum prompt length is 131072 but the request contains 136973 tokens.",
  },
  {
    provider: 'xAI (gRPC)',
    source: 'https://github.com/UKGovernmentBEIS/inspect_ai/pull/5208',
    body: 'Failed to start sampling: [input_too_large] Current message (1149677 tokens) exceeds budget (975424 tokens)',
  },
  {
    provider: 'Groq',
    source: 'https://github.com/thepersonalaicompany/amurex-backend/issues/51',
    status: 400,
    body: "{'error': {'message': 'Please reduce the length of the messages or completion.', 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
  },
  {
    provider: 'Cerebras',
    source: 'https://github.com/cline/cline/issues/5140',
    status: 400,
    body: '400 Please reduce the length of the messages or completion. Current length is 42328 while limit is 40000',
  },
  {
    provider: 'OpenRouter',
    source: 'https://github.com/agno-agi/agno/issues/3980',
    status: 400,
    body: 'This endpoint\'s maximum context length is 200000 tokens. However, you requested about 5028244 tokens (4945291 of text input, 2953 of tool input, 80000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
  },
  {
    provider: 'DeepSeek',
    source: 'https://github.com/evalstate/fast-agent/issues/621',
    status: 400,
    body: `{'error': {'message': "This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.", 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_request_error'}}`,
  },
  {
    provider: 'vLLM (OpenAI server)',
    source: 'https://github.com/vllm-project/vllm/issues/20409',
    status: 400,
    body: `{'object': 'error', 'message': "This model's maximum context length is 16384 tokens. However, you requested 19591 tokens (9591 in the messages, 10000 in the completion). Please reduce the length of the messages or completion. None", 'type': 'BadRequestError', 'param': None, 'code': 400}`,
  },
  {
    provider: 'vLLM (engine)',
    source: 'https://github.com/xorbitsai/inference/issues/3785',
    body: 'ValueError: [address=0.0.0.0:37591, pid=324770] The decoder prompt (length 17772) is longer than the maximum model length of 16384.',
  },
  {
    provider: 'vLLM (engine, multimodal)',
    source: 'https://github.com/vllm-project/vllm/issues/12165',
    body: 'ValueError: The prompt (total length 25938) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.',
  },
  {
    provider: 'vLLM (V1)',
    source: 'https://github.com/hiyouga/LlamaFactory/issues/7723',
    body: 'ValueError: Prompt length of 5016 is longer than the maximum model length of 4096.',
  },
  {
    provider: 'llama.cpp server',
    source: 'https://github.com/ggml-org/llama.cpp/pull/15780',
    status: 500,
    body: `{
    "error": {
        "code": 500,
        "message": "the request exceeds the available context size. try increasing the context size or enable context shift",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 1407,
        "n_ctx": 256
    }
}`,
  },
  {
    provider: 'llama.cpp server (older)',
    source: 'https://github.com/ggml-org/llama.cpp/issues/19774',
    status: 500,
    body: '{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}',
  },
  {
    provider: 'LM Studio',
    source: 'https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/546',
    status: 400,
    body: 'Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input. Error Data: n/a, Additional Data: n/a',
  },
  {
    provider: 'GitHub Copilot',
    source: 'https://github.com/microsoft/vscode/issues/289514',
    status: 400,
    body: '{"error":{"message":"prompt token count of 514673 exceeds the limit of 128000","code":"model_max_prompt_tokens_exceeded"}}',
  },
  {
    provider: 'GitHub Copilot (older, no code)',
    source: 'https://github.com/jjleng/copilot-more/issues/35',
    status: 400,
    body: '{"error":{"message":"prompt token count of 93854 exceeds the limit of 90000","param":"","code":"","type":""}}',
  },
  {
    provider: 'Ollama (cloud models)',
    source: 'public forensics note on a pi session using Ollama cloud (kimi-k2.6:cloud), found via the code index',
    status: 400,
    body: 'prompt too long; exceeded max context length by 65590 tokens (ref: ...)',
  },
  {
    provider: 'Hugging Face TGI',
    source: 'https://github.com/huggingface/llm-vscode/issues/94',
    status: 422,
    body: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 3474 `inputs` tokens and 60 `max_new_tokens`',
  },
  {
    provider: 'Hugging Face Inference API',
    source: 'https://github.com/meta-llama/llama/issues/1103',
    status: 422,
    body: 'Input validation error: `inputs` must have less than 4096 tokens. Given: 4545',
  },
  {
    // As the report shows it, less the terminal's line break inside "requested".
    provider: 'Kimi (Moonshot)',
    source: 'https://github.com/MoonshotAI/kimi-cli/issues/2011',
    status: 400,
    body: `{'error': {'message': 'Invalid request: Your request exceeded model token limit: 262144 (requested: 269030)', 'type': 'invalid_request_error'}}`,
  },
  {
    provider: 'MiniMax (Anthropic-compatible endpoint)',
    source: 'https://github.com/rowboatlabs/rowboat/issues/514',
    status: 400,
    body: '{"type":"error","error":{"type":"bad_request_error","message":"invalid params, context window exceeds limit (2013)","http_code":"400"},"request_id":"06340988ef34a8f048d8267af65d3228"}',
  },
  {
    // The message as Mistral's API words it (quoted in https://portkey.ai/error-library/context-length-exceeded-error-13710000);
    // the envelope is Mistral's OpenAI-style error object.
    provider: 'Mistral',
    source: 'https://portkey.ai/error-library/context-length-exceeded-error-13710000',
    status: 400,
    body: '{"object":"error","message":"Prompt contains 66385 tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","param":null,"code":null}',
  },
  {
    // Together serves open models through SGLang, whose length check answers with this wording (the body seen from an
    // SGLang server in a public experiment log, found via the code index); pi-ai's overflow list names it as Together's.
    provider: 'Together AI',
    source: 'SGLang 400 body in a public experiment log (code index); wording attributed to Together AI by earendil-works/pi-ai src/utils/overflow.ts',
    status: 400,
    body: '{"object":"error","message":"The input (43028 tokens) is longer than the model\'s context length (40960 tokens).","type":"BadRequestError","param":null,"code":400}',
  },
];

/** Bodies that mention tokens, lengths or limits but are not a context overflow. */
export const NOT_OVERFLOW_FIXTURES: ErrorFixture[] = [
  {
    provider: 'OpenAI (max_tokens too large)',
    source: 'https://github.com/diffbot/code-gpt-docs/issues/284',
    status: 400,
    body: '400 max_tokens is too large: 6000. This model supports at most 4096 completion tokens, whereas you provided 6000.',
  },
  {
    provider: 'Anthropic (max_tokens above the output limit)',
    source: 'https://github.com/ChatGPTNextWeb/NextChat/issues/4964',
    status: 400,
    body: `{
  "type": "error",
  "error": {
    "type": "invalid_request_error",
    "message": "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620"
  }
}`,
  },
  {
    provider: 'Amazon Bedrock (max tokens above the model limit)',
    source: 'https://github.com/RooCodeInc/Roo-Code/issues/248',
    status: 400,
    body: 'The maximum tokens you requested exceed the model limit of 4096. Try again with a maximum tokens value lower than 4096.',
  },
  {
    provider: 'OpenAI (TPM rate limit)',
    source: 'https://github.com/BuilderIO/micro-agent/issues/86',
    status: 429,
    body: '429 Rate limit reached for gpt-4o in organization org-uOtiSEwvUnroadaOnJJquBEC on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms.',
  },
  {
    provider: 'OpenAI (request larger than the TPM budget)',
    source: 'https://github.com/TheR1D/shell_gpt/issues/653',
    status: 429,
    body: "{'error': {'message': 'Request too large for gpt-4o in organization org-78asdf87asdf9aaa8976 on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.', 'type': 'tokens', 'param': None, 'code': 'rate_limit_exceeded'}}",
  },
  {
    provider: 'Anthropic (input tokens per minute)',
    source: 'https://github.com/OpenHands/OpenHands/issues/9259',
    status: 429,
    body: '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (0dccdde6-f924-4f1b-bb3b-92ef846e0a5b) of 20,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}}',
  },
  {
    provider: 'Amazon Bedrock (throttling)',
    source: 'https://github.com/aws-samples/amazon-bedrock-client-for-mac/issues/99',
    status: 429,
    body: 'ThrottlingException: Too many tokens, please wait before trying again.',
  },
  {
    provider: 'OpenAI (one message above the 10 MB string limit)',
    source: 'https://github.com/VectorlyApp/bluebox/issues/31',
    status: 400,
    body: `{'error': {'message': "Invalid 'input[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 62114761 instead.", 'type': 'invalid_request_error', 'param': 'input[0].content', 'code': 'string_above_max_length'}}`,
  },
  {
    provider: 'OpenAI (tool description too long)',
    source: 'https://github.com/rusiaaman/wcgw/issues/51',
    status: 400,
    body: `{'error': {'code': 'string_above_max_length', 'message': "Invalid 'tools[5].function.description': string too long. Expected a string with maximum length 1024, but got a string with length 2357 instead.", 'param': 'tools[5].function.description', 'type': 'invalid_request_error'}}`,
  },
  {
    provider: 'OpenAI (invalid key)',
    source: 'https://github.com/continuedev/continue/issues/11409',
    status: 401,
    body: '{"message":"Incorrect API key provided: kod-460f****************************************************************************************2829. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}',
  },
  {
    // Constructed, not a provider body: the phrase "maximum context length" in a
    // parameter check must not count unless it states the window it exceeded.
    provider: 'constructed: parameter validation mentioning the window',
    source: 'constructed for this test',
    status: 400,
    body: "Invalid value for 'max_tokens': it must be lower than the model's maximum context length.",
  },
];
