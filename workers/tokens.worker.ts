/**
 * Browser entry of the token worker. The tokenizer tables load here and only
 * here; the main thread talks to it through tokensClient.ts.
 */
import { expose } from 'comlink';
import { createTokensService } from '@/lib/sessionTokens/service';

expose(createTokensService());
