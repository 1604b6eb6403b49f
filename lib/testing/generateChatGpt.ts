import { utf8Length } from '@/lib/formats/lines';
import { Rng } from './generate';

/**
 * Deterministic synthetic ChatGPT data exports (conversations.json) for the
 * import benchmark and tests. The shape follows real exports (see
 * fixtures/real/danny-avila_LibreChat_chatgpt-*.json): an array of
 * conversations, each a `mapping` of nodes {id, message, parent, children}
 * under a message-less root and a hidden system message, with `current_node`
 * on the branch the user last looked at.
 *
 * What makes it realistic enough to measure an importer with:
 * - branching as ChatGPT produces it: edited prompts (a sibling user message,
 *   the old branch kept with its own continuation) and regenerated replies
 *   (sibling assistant messages, some of them interrupted);
 * - tool use: code interpreter (code → execution_output), browsing
 *   (search → tether_browsing_display, mclick → tether_quote), image
 *   generation (dalle.text2im → multimodal_text with asset pointers);
 * - reasoning models (thoughts + reasoning_recap before the reply), user
 *   images, custom instructions, a little non-English text and emoji;
 * - skewed sizes: most prompts short, some with pasted code or logs; replies
 *   of a few paragraphs, lists, tables and code blocks, a few very long;
 *   most conversations a handful of turns, a few hundreds of messages;
 * - the per-message metadata real exports carry, so bytes per message match.
 *
 * The same seed always yields the same bytes. Pure TypeScript: the caller
 * writes the chunks wherever it wants (a temp file, a string, a stream).
 */

export interface ChatGptAuthor {
  role: 'system' | 'user' | 'assistant' | 'tool';
  name: string | null;
  metadata: Record<string, unknown>;
}

export interface ChatGptMessage {
  id: string;
  author: ChatGptAuthor;
  create_time: number | null;
  update_time: number | null;
  content: Record<string, unknown> & { content_type: string };
  status: string;
  end_turn: boolean | null;
  weight: number;
  metadata: Record<string, unknown>;
  recipient: string;
  channel: string | null;
}

export interface ChatGptNode {
  id: string;
  message: ChatGptMessage | null;
  parent: string | null;
  children: string[];
}

export interface ChatGptConversation {
  title: string;
  create_time: number;
  update_time: number;
  mapping: Record<string, ChatGptNode>;
  moderation_results: unknown[];
  current_node: string;
  plugin_ids: null;
  conversation_id: string;
  conversation_template_id: string | null;
  gizmo_id: string | null;
  gizmo_type: string | null;
  is_archived: boolean;
  is_starred: boolean | null;
  safe_urls: string[];
  blocked_urls: string[];
  default_model_slug: string;
  conversation_origin: null;
  voice: null;
  async_status: null;
  disabled_tool_ids: string[];
  is_do_not_remember: boolean;
  memory_scope: string;
  id: string;
}

/** What was generated, so a benchmark can report it and a test can check the importer kept it. */
export interface ChatGptExportShape {
  conversations: number;
  /** Every mapping node, the message-less roots included. */
  nodes: number;
  /** Nodes with a message (system, user, assistant, tool). */
  messages: number;
  /** Nodes with more than one child. */
  branchPoints: number;
  editedPrompts: number;
  regeneratedReplies: number;
  toolCalls: number;
  images: number;
  reasoningReplies: number;
  /** UTF-8 bytes of everything yielded. */
  bytes: number;
}

export function emptyShape(): ChatGptExportShape {
  return { conversations: 0, nodes: 0, messages: 0, branchPoints: 0, editedPrompts: 0, regeneratedReplies: 0, toolCalls: 0, images: 0, reasoningReplies: 0, bytes: 0 };
}

// ------------------------------------------------------------------ text

const WORDS = (
  'the a to of and in is that it for on with as this be are by we can not or from have but at which you an if will ' +
  'about would like some more time make just know take people into year good could them see other than then now look only ' +
  'come its over think also back after use two how our work first well way even new want because any these give day most ' +
  'recipe trip budget email letter essay summary outline plan schedule workout diet garden kitchen apartment rent salary ' +
  'interview resume cover meeting project deadline report chart table spreadsheet formula python script function data ' +
  'error install server database query index cache request response api endpoint token model prompt context window ' +
  'history chapter character story poem translate grammar sentence paragraph tone formal casual friendly concise detailed ' +
  'explain compare example option step approach reason result issue problem solution idea suggestion question answer ' +
  'should would could might probably actually however because therefore instead otherwise although whether unless ' +
  'small large fast slow simple complex correct wrong empty full valid invalid cheap expensive healthy quick easy hard ' +
  'weather flight hotel museum train price insurance contract tax invoice customer product market launch review feedback'
).split(' ');

const TITLE_WORDS = (
  'Python Script Help|Trip Planning|Email Draft|Recipe Ideas|SQL Query Fix|Resume Review|Essay Outline|Budget Spreadsheet|' +
  'Workout Plan|React Component Bug|Translate Letter|Interview Prep|Data Cleaning|Marketing Copy|Garden Layout|Tax Question|' +
  'Regex Explanation|Docker Setup|Birthday Poem|Book Summary|Physics Homework|Excel Formula|API Design|Cover Letter|Bash Loop'
).split('|');

const NON_ENGLISH = [
  'Kannst du mir bitte helfen, diesen Brief höflicher zu formulieren? Danke schön.',
  "Peux-tu m'expliquer la différence entre ces deux approches ? C'est très déroutant.",
  '请帮我把这段话翻译成英文，并保持原来的语气。',
  'この文章をもっと自然な日本語に直してください。',
  'Спасибо! Можешь сделать то же самое, но короче?',
  '¿Cuál es la mejor manera de organizar este presupuesto mensual?',
  'Perfect, thanks 🙏 can you make it a bit shorter? 😅',
];

const MODELS = ['gpt-4o', 'gpt-4o', 'gpt-4o', 'gpt-4', 'gpt-4o-mini', 'text-davinci-002-render-sha', 'o1-preview', 'o3-mini', 'gpt-4-5'] as const;
const REASONING = new Set(['o1-preview', 'o3-mini']);
const SITES = ['en.wikipedia.org', 'www.reddit.com', 'stackoverflow.com', 'www.nytimes.com', 'docs.python.org', 'developer.mozilla.org', 'www.bbc.com', 'github.com'];
const LANGS = ['python', 'javascript', 'sql', 'bash', 'typescript', 'json'] as const;

class Text {
  constructor(private readonly r: Rng) {}

  sentence(min = 6, max = 24): string {
    const r = this.r;
    const n = r.int(min, max);
    let s = '';
    for (let i = 0; i < n; i++) s += (i ? ' ' : '') + r.pick(WORDS);
    if (r.chance(0.1)) s += ` ${r.int(2, 2025)}`;
    return s[0]!.toUpperCase() + s.slice(1) + r.pick(['.', '.', '.', '?', '!', ':']);
  }

  paragraph(sentences: number): string {
    const out: string[] = [];
    for (let i = 0; i < sentences; i++) out.push(this.sentence());
    return out.join(' ');
  }

  code(lang: string, lines: number): string {
    const r = this.r;
    const out: string[] = [];
    for (let i = 0; i < lines; i++) {
      const pad = '    '.repeat(r.int(0, 2));
      const a = r.pick(WORDS);
      const b = r.pick(WORDS);
      switch (lang) {
        case 'python':
          out.push(r.chance(0.2) ? `${pad}def ${a}_${b}(${r.pick(WORDS)}, ${r.pick(WORDS)}=None):` : `${pad}${a}_${b} = ${r.pick(WORDS)}.get("${b}", ${r.int(0, 999)})`);
          break;
        case 'sql':
          out.push(`${pad}SELECT ${a}, COUNT(*) FROM ${b}s WHERE ${a}_id = ${r.int(1, 9999)} GROUP BY ${a};`);
          break;
        case 'bash':
          out.push(`${pad}${r.pick(['grep -rn', 'ls -la', 'cat', 'curl -s', 'docker run --rm', 'git log --oneline'])} ${a}/${b}.${r.pick(['txt', 'log', 'py', 'json'])}`);
          break;
        case 'json':
          out.push(`${pad}"${a}_${b}": ${r.chance(0.5) ? r.int(0, 99999) : `"${r.pick(WORDS)}"`},`);
          break;
        default:
          out.push(r.chance(0.2) ? `${pad}function ${a}${b[0]!.toUpperCase()}${b.slice(1)}(${r.pick(WORDS)}) {` : `${pad}const ${a} = await ${b}(${r.int(0, 4096)}); // ${this.sentence(3, 8)}`);
      }
    }
    return out.join('\n');
  }

  /** A markdown reply of roughly `chars` characters: paragraphs, lists, tables, code. */
  reply(chars: number): string {
    const r = this.r;
    const parts: string[] = [];
    let len = 0;
    while (len < chars) {
      const k = r.int(0, 9);
      let p: string;
      if (k <= 3) p = this.paragraph(r.int(2, 5));
      else if (k <= 5) p = Array.from({ length: r.int(3, 7) }, (_, i) => `${r.chance(0.5) ? `${i + 1}.` : '-'} **${this.sentence(1, 3).slice(0, -1)}**: ${this.sentence(5, 16)}`).join('\n');
      else if (k === 6) p = `### ${this.sentence(2, 5).slice(0, -1)}\n\n${this.paragraph(r.int(1, 3))}`;
      else if (k === 7) {
        const cols = r.int(2, 4);
        const row = () => `| ${Array.from({ length: cols }, () => this.sentence(1, 3).slice(0, -1)).join(' | ')} |`;
        p = [row(), `|${' --- |'.repeat(cols)}`, ...Array.from({ length: r.int(2, 6) }, row)].join('\n');
      } else {
        const lang = r.pick(LANGS);
        p = '```' + lang + '\n' + this.code(lang, r.int(4, 30)) + '\n```';
      }
      parts.push(p);
      len += p.length + 2;
    }
    return parts.join('\n\n');
  }

  prompt(): string {
    const r = this.r;
    if (r.chance(0.03)) return r.pick(NON_ENGLISH);
    let p = this.paragraph(Math.min(12, Math.max(1, Math.round(r.skewed(220, 1.3) / 110))));
    if (r.chance(0.12)) {
      const lang = r.pick(LANGS);
      p += `\n\n\`\`\`${lang}\n${this.code(lang, Math.min(300, r.skewed(25, 1.2)))}\n\`\`\``;
    } else if (r.chance(0.05)) {
      p += '\n\n' + Array.from({ length: Math.min(200, r.skewed(20, 1.2)) }, () => `${r.pick(['INFO', 'WARN', 'ERROR'])} ${this.sentence(4, 12)}`).join('\n');
    }
    return p;
  }
}

// ------------------------------------------------------------------ conversations

function uuid(r: Rng): string {
  const hex = '0123456789abcdef';
  let s = '';
  for (let i = 0; i < 32; i++) {
    if (i === 8 || i === 12 || i === 16 || i === 20) s += '-';
    s += i === 12 ? '4' : i === 16 ? hex[8 + r.int(0, 3)] : hex[r.int(0, 15)];
  }
  return s;
}

class ConversationBuilder {
  readonly mapping: Record<string, ChatGptNode> = {};
  private readonly t: Text;

  constructor(
    private readonly r: Rng,
    private clock: number,
    private readonly model: string,
    private readonly shape: ChatGptExportShape,
  ) {
    this.t = new Text(r);
  }

  get now(): number {
    return this.clock;
  }

  private node(parent: string | null, message: Omit<ChatGptMessage, 'id'> | null): string {
    const id = uuid(this.r);
    this.mapping[id] = { id, message: message ? { id, ...message } : null, parent, children: [] };
    if (parent) this.mapping[parent]!.children.push(id);
    this.shape.nodes++;
    if (message) this.shape.messages++;
    return id;
  }

  private tick(lo: number, hi: number): number {
    this.clock += this.r.int(lo, hi) + this.r.int(0, 999_999) / 1e6;
    return Math.round(this.clock * 1e6) / 1e6;
  }

  private msg(role: ChatGptAuthor['role'], content: ChatGptMessage['content'], o: { name?: string; recipient?: string; status?: string; endTurn?: boolean | null; metadata?: Record<string, unknown> } = {}): Omit<ChatGptMessage, 'id'> {
    return {
      author: { role, name: o.name ?? null, metadata: {} },
      create_time: this.tick(role === 'user' ? 20 : 2, role === 'user' ? 900 : 40),
      update_time: null,
      content,
      status: o.status ?? 'finished_successfully',
      end_turn: o.endTurn === undefined ? null : o.endTurn,
      weight: 1,
      metadata: o.metadata ?? {},
      recipient: o.recipient ?? 'all',
      channel: null,
    };
  }

  private assistantMeta(parent: string, finish: 'stop' | 'interrupted' = 'stop'): Record<string, unknown> {
    return {
      finish_details: finish === 'stop' ? { type: 'stop', stop_tokens: [200002] } : { type: 'interrupted' },
      is_complete: finish === 'stop',
      citations: [],
      content_references: [],
      message_type: null,
      model_slug: this.model,
      default_model_slug: this.model,
      parent_id: parent,
      request_id: `${this.r.id(16).toLowerCase()}-IAD`,
      timestamp_: 'absolute',
    };
  }

  root(): string {
    const root = this.node(null, null);
    return this.node(root, {
      ...this.msg('system', { content_type: 'text', parts: [''] }, { endTurn: true }),
      create_time: null,
      weight: 0,
      metadata: { is_visually_hidden_from_conversation: true },
    });
  }

  customInstructions(parent: string): string {
    return this.node(parent, {
      ...this.msg('user', { content_type: 'user_editable_context', user_profile: `The user provided the following information about themselves: ${this.t.paragraph(2)}`, user_instructions: `The user provided the additional info about how they would like you to respond: ${this.t.paragraph(2)}` }),
      weight: 0,
      metadata: { is_visually_hidden_from_conversation: true, user_context_message_data: { about_user_message: this.t.sentence(), about_model_message: this.t.sentence() } },
    });
  }

  private user(parent: string): string {
    const r = this.r;
    const meta = { request_id: `${r.id(16).toLowerCase()}-IAD`, message_source: null, timestamp_: 'absolute', message_type: null };
    if (r.chance(0.04)) {
      this.shape.images++;
      const w = r.pick([512, 1024, 1536]);
      const h = r.pick([512, 768, 1024]);
      const image = { content_type: 'image_asset_pointer', asset_pointer: `file-service://file-${r.id(22)}`, size_bytes: r.int(40_000, 900_000), width: w, height: h, fovea: null, metadata: null };
      return this.node(parent, this.msg('user', { content_type: 'multimodal_text', parts: [image, this.t.prompt()] }, { metadata: { ...meta, attachments: [{ id: `file-${r.id(22)}`, size: image.size_bytes, name: `IMG_${r.int(1000, 9999)}.jpeg`, mime_type: 'image/jpeg', width: w, height: h }] } }));
    }
    return this.node(parent, this.msg('user', { content_type: 'text', parts: [this.t.prompt()] }, { metadata: meta }));
  }

  private reply(parent: string, interrupted = false): string {
    let chars = Math.min(16_000, this.r.skewed(1_400, 1.2));
    if (interrupted) chars = Math.max(40, Math.round(chars * this.r.next() * 0.5));
    return this.node(
      parent,
      this.msg('assistant', { content_type: 'text', parts: [this.t.reply(chars)] }, { endTurn: !interrupted, status: interrupted ? 'finished_partial_completion' : 'finished_successfully', metadata: this.assistantMeta(parent, interrupted ? 'interrupted' : 'stop') }),
    );
  }

  private tools(parent: string): string {
    const r = this.r;
    const t = this.t;
    const kind = r.int(0, 2);
    this.shape.toolCalls++;
    if (kind === 0) {
      const call = this.node(parent, this.msg('assistant', { content_type: 'code', language: 'unknown', text: t.code('python', r.int(3, 40)) }, { recipient: 'python', endTurn: false, metadata: this.assistantMeta(parent) }));
      const out = r.chance(0.1) ? `Traceback (most recent call last):\n  File "<stdin>", line ${r.int(1, 40)}\nKeyError: '${r.pick(WORDS)}'` : t.code('json', r.int(1, 25));
      return this.node(call, this.msg('tool', { content_type: 'execution_output', text: out }, { name: 'python', metadata: { aggregate_result: { status: 'success', run_id: uuid(r), start_time: this.clock, end_time: this.clock + 1, code: '', messages: [], jupyter_messages: [] }, is_complete: true } }));
    }
    if (kind === 1) {
      const search = this.node(parent, this.msg('assistant', { content_type: 'code', language: 'unknown', text: `search("${t.sentence(3, 8).slice(0, -1)}")` }, { recipient: 'browser', endTurn: false, metadata: this.assistantMeta(parent) }));
      const results = Array.from({ length: r.int(3, 10) }, (_, i) => `# 【${i}†${t.sentence(3, 9).slice(0, -1)}†${r.pick(SITES)}】\n${t.paragraph(r.int(1, 3))}`).join('\n');
      let at = this.node(search, this.msg('tool', { content_type: 'tether_browsing_display', result: results, summary: null, assets: null }, { name: 'browser' }));
      if (r.chance(0.5)) {
        this.shape.toolCalls++;
        at = this.node(at, this.msg('assistant', { content_type: 'code', language: 'unknown', text: `mclick([${r.int(0, 3)}, ${r.int(4, 9)}])` }, { recipient: 'browser', endTurn: false, metadata: this.assistantMeta(at) }));
        for (let q = r.int(1, 3); q > 0; q--) {
          const site = r.pick(SITES);
          at = this.node(at, this.msg('tool', { content_type: 'tether_quote', url: `https://${site}/${r.pick(WORDS)}-${r.pick(WORDS)}`, domain: site, text: t.paragraph(r.int(3, 12)), title: t.sentence(3, 8).slice(0, -1) }, { name: 'browser' }));
        }
      }
      return at;
    }
    this.shape.images++;
    const call = this.node(parent, this.msg('assistant', { content_type: 'text', parts: [JSON.stringify({ prompt: t.paragraph(2), size: '1024x1024', n: 1 })] }, { recipient: 'dalle.text2im', endTurn: false, metadata: this.assistantMeta(parent) }));
    const image = { content_type: 'image_asset_pointer', asset_pointer: `file-service://file-${r.id(22)}`, size_bytes: r.int(200_000, 600_000), width: 1024, height: 1024, fovea: 512, metadata: { dalle: { gen_id: r.id(16), prompt: t.sentence(8, 20), seed: r.int(1, 2 ** 31), serialization_title: 'DALL-E generation metadata' } } };
    return this.node(call, this.msg('tool', { content_type: 'multimodal_text', parts: [image] }, { name: 'dalle.text2im' }));
  }

  private thinking(parent: string): string {
    const t = this.t;
    this.shape.reasoningReplies++;
    const thoughts = this.node(
      parent,
      this.msg('assistant', { content_type: 'thoughts', thoughts: Array.from({ length: this.r.int(1, 4) }, () => ({ summary: t.sentence(2, 5), content: t.paragraph(this.r.int(2, 6)) })), source_analysis_msg_id: uuid(this.r) }, { endTurn: false, metadata: this.assistantMeta(parent) }),
    );
    return this.node(thoughts, this.msg('assistant', { content_type: 'reasoning_recap', content: `Thought for ${this.r.int(2, 90)} seconds` }, { endTurn: false, metadata: this.assistantMeta(thoughts) }));
  }

  /** One exchange below `parent`; returns the node the next exchange hangs from. */
  turn(parent: string): string {
    const r = this.r;
    const prompt = this.user(parent);
    if (r.chance(0.06)) {
      // Regenerated: the first reply stays as a sibling of the one the conversation continues from.
      this.reply(prompt, r.chance(0.3));
      this.shape.regeneratedReplies++;
    }
    let at = prompt;
    if (r.chance(0.1)) at = this.tools(at);
    if (REASONING.has(this.model) && r.chance(0.8)) at = this.thinking(at);
    return this.reply(at);
  }

  countBranchPoints(): void {
    for (const id in this.mapping) if (this.mapping[id]!.children.length > 1) this.shape.branchPoints++;
  }
}

function titleCase(s: string): string {
  return s.replace(/\b\w/g, (c) => c.toUpperCase());
}

/**
 * One conversation. `startSeconds` is its create_time (epoch seconds, like
 * the export); the returned `endSeconds` is its last message's time.
 */
export function generateChatGptConversation(r: Rng, startSeconds: number, shape: ChatGptExportShape = emptyShape()): { conversation: ChatGptConversation; endSeconds: number } {
  const model = r.pick(MODELS);
  const b = new ConversationBuilder(r, startSeconds, model, shape);
  let cursor = b.root();
  if (r.chance(0.1)) cursor = b.customInstructions(cursor);
  const turns = Math.min(150, r.skewed(5, 1.4));
  for (let t = 0; t < turns; t++) {
    if (t > 0 && r.chance(0.05)) {
      // Edited prompt: the old branch keeps its own continuation; the conversation goes on from the edit.
      let old = cursor;
      for (let k = r.int(1, 3); k > 0; k--) old = b.turn(old);
      shape.editedPrompts++;
    }
    cursor = b.turn(cursor);
  }
  b.countBranchPoints();
  shape.conversations++;
  const id = uuid(r);
  const title = r.chance(0.7) ? r.pick(TITLE_WORDS) : titleCase(new Text(r).sentence(2, 6).slice(0, -1));
  return {
    conversation: {
      title,
      create_time: startSeconds,
      update_time: b.now,
      mapping: b.mapping,
      moderation_results: [],
      current_node: cursor,
      plugin_ids: null,
      conversation_id: id,
      conversation_template_id: null,
      gizmo_id: r.chance(0.05) ? `g-${r.id(9)}` : null,
      gizmo_type: null,
      is_archived: r.chance(0.03),
      is_starred: null,
      safe_urls: [],
      blocked_urls: [],
      default_model_slug: model,
      conversation_origin: null,
      voice: null,
      async_status: null,
      disabled_tool_ids: [],
      is_do_not_remember: false,
      memory_scope: 'global_enabled',
      id,
    },
    endSeconds: b.now,
  };
}

export interface ChatGptExportOptions {
  seed: number;
  /** Stop once this many UTF-8 bytes were produced (the last conversation is completed, then the array closed). */
  targetBytes?: number;
  /** Or stop after this many conversations. */
  conversations?: number;
  /** create_time of the first conversation, epoch seconds. */
  startSeconds?: number;
}

/**
 * conversations.json as text chunks (one conversation per chunk, compact
 * JSON like the real export), so a 100 MB file never has to exist as one
 * string. `shape` is filled as the chunks are produced.
 */
export function* chatGptExportChunks(opts: ChatGptExportOptions, shape: ChatGptExportShape = emptyShape()): Generator<string> {
  const r = new Rng(opts.seed);
  const max = opts.conversations ?? Infinity;
  const target = opts.targetBytes ?? Infinity;
  if (max === Infinity && target === Infinity) throw new Error('chatGptExportChunks: give targetBytes or conversations');
  let clock = opts.startSeconds ?? Date.UTC(2023, 2, 1) / 1000;
  const emit = (s: string) => {
    shape.bytes += utf8Length(s);
    return s;
  };
  yield emit('[');
  for (let i = 0; i < max && shape.bytes < target; i++) {
    const { conversation, endSeconds } = generateChatGptConversation(r, clock, shape);
    clock = endSeconds + r.int(600, 3 * 86_400);
    yield emit((i ? ',' : '') + JSON.stringify(conversation));
  }
  yield emit(']');
}

/** A whole (small) export as objects, for tests. */
export function generateChatGptExport(opts: { seed: number; conversations: number }): { conversations: ChatGptConversation[]; shape: ChatGptExportShape } {
  const shape = emptyShape();
  const text = [...chatGptExportChunks(opts, shape)].join('');
  return { conversations: JSON.parse(text) as ChatGptConversation[], shape };
}
