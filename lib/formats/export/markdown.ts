import { formatCount } from '@/lib/format/numbers';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry, SessionSnapshot } from '@/lib/session/types';
import type { EffectiveSummary } from '@/lib/session/revisions';
import { escapeMarkdownText as esc, neutraliseMarkdown as md } from './markdownSafety';
import { argsJson, entryPreview, formatDate, imageLabel, isHttpUrl, stopNote, summaryFacts } from './shared';

/**
 * Markdown export: the active path (what buildSessionContext walks), messages
 * under role headings, tool calls and results in fenced blocks, compactions
 * and branch summaries as marked blockquotes. With `allBranches`, every branch
 * of the tree follows, depth-first, each under a "Branch" heading.
 *
 * What the conversation says is Markdown and stays so, but without raw HTML
 * or script links (`md`); names and titles are plain text (`esc`): see
 * markdownSafety.ts for why.
 */

export interface MarkdownExportOptions {
  allBranches?: boolean;
  /**
   * YAML front matter (title, dates, model, source, …) for notes apps such as
   * Obsidian, which read it as the note's properties; the facts line it
   * replaces is left out.
   */
  frontMatter?: boolean;
}

/**
 * A YAML scalar: JSON's double-quoted strings are valid YAML, so any text is
 * safe. `<`, `>`, `&`, `[` and `]` are written as \u escapes (YAML reads them
 * back the same): a Markdown viewer that does not know front matter shows it
 * as text, and must find no tag and no link in it.
 */
function yamlString(s: string): string {
  return JSON.stringify(s).replace(/[<>&[\]]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** ISO 8601 in UTC without milliseconds: a YAML timestamp that notes apps read as a date and time. */
function yamlTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function frontMatter(snapshot: SessionSnapshot): string {
  const { meta } = snapshot;
  const lines = ['---', `title: ${yamlString(meta.title)}`];
  // An undated import carries its import time, which is not when the conversation happened.
  if (!meta.undated) lines.push(`created: ${yamlTime(meta.createdAt)}`, `updated: ${yamlTime(meta.updatedAt)}`);
  if (meta.model) lines.push(`model: ${yamlString(meta.model)}`);
  if (meta.source) {
    lines.push(`source: ${yamlString(meta.source.format)}`);
    if (meta.source.fileName) lines.push(`source_file: ${yamlString(meta.source.fileName)}`);
  }
  if (meta.continuedFrom) lines.push(`continued_from: ${yamlString(meta.continuedFrom.title)}`);
  if (meta.cwd) lines.push(`cwd: ${yamlString(meta.cwd)}`);
  lines.push(`entries: ${snapshot.entries.length}`, 'tags:', '  - longctx');
  if (meta.source) lines.push(`  - ${yamlString(meta.source.format)}`);
  lines.push('---');
  return lines.join('\n');
}

/** A fence longer than any backtick run inside, so content cannot close it. */
export function fence(text: string, lang = ''): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${text}\n${f}`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

function messageMd(e: SessionEntry & { type: 'message' }, level: string): string {
  const m = e.message;
  const out: string[] = [];
  if (m.role === 'user') {
    out.push(`${level} User`);
    for (const p of m.content) {
      if (p.type === 'text') out.push(md(p.text));
      else if (p.type === 'image') out.push(isHttpUrl(p.url) ? `![${esc(imageLabel(p))}](<${p.url.replace(/[<>\s]/g, encodeURIComponent)}>)` : `*\\[${esc(imageLabel(p))}\\]*`);
      else out.push(`*\\[file: ${esc(p.name)}, ${esc(p.mimeType)}\\]*` + (p.text !== undefined ? `\n\n${fence(p.text)}` : ''));
    }
  } else if (m.role === 'assistant') {
    out.push(`${level} Assistant${m.model ? ` · ${esc(m.model)}` : ''}`);
    for (const p of m.content) {
      if (p.type === 'text') out.push(md(p.text));
      else if (p.type === 'thinking') out.push(quote(`**Thinking**${p.redacted ? ' (redacted)' : ''}\n\n${md(p.thinking)}`));
      else out.push(`**Tool call** \`${p.name.replace(/`/g, "'")}\` (${esc(p.id)})\n\n${fence(argsJson(p.arguments), 'json')}`);
    }
    const note = stopNote(m.stopReason);
    if (note) out.push(`*(Reply ${note}${m.errorMessage ? `: ${esc(m.errorMessage)}` : ''})*`);
  } else {
    out.push(`${level} Tool result · ${esc(m.toolName)}${m.isError ? ' (error)' : ''}`);
    for (const p of m.content) {
      if (p.type === 'text') out.push(fence(p.text));
      else out.push(`*\\[${esc(imageLabel(p))}\\]*`);
    }
  }
  return out.join('\n\n');
}

function entryMd(e: SessionEntry, level: string, effective?: EffectiveSummary): string {
  switch (e.type) {
    case 'message':
      return messageMd(e, level);
    case 'compaction': {
      const facts = summaryFacts(e, effective).map(esc);
      return quote(
        `**Compaction summary** (${formatCount(e.tokensBefore)} tokens before${e.tokensAfter !== undefined ? `, ${formatCount(e.tokensAfter)} after` : ''})\n\n*${facts.join(' · ')}*\n\n${md(effective?.summary ?? e.summary)}`,
      );
    }
    case 'branch_summary':
      return quote(`**Branch summary** (of the branch that ended at ${esc(e.fromId)})\n\n*${summaryFacts(e, effective).map(esc).join(' · ')}*\n\n${md(effective?.summary ?? e.summary)}`);
    case 'model_change':
      return `*Model changed to ${esc(e.model)}*`;
    case 'label':
      return `*Label ${e.label === null ? 'cleared' : `“${esc(e.label)}”`} on entry ${esc(e.targetId)}*`;
    case 'summary_revision':
      return quote(`**Summary ${e.action}** (of ${esc(e.targetId)})${e.summary !== undefined ? `\n\n${md(e.summary)}` : ''}`);
    case 'custom':
      return `*\\[${esc(e.customType)}\\] ${esc(entryPreview(e, 200))}*`;
    case 'pin':
      return `*${e.pinned ? 'Pinned' : 'Unpinned'} entry ${esc(e.targetId)} (kept verbatim through compactions)*`;
    case 'tool_mask':
      return `*Old tool output masked in the model's context: ${e.maskedIds.length} results, ${formatCount(e.tokensBefore)} → ${formatCount(e.tokensAfter)} tokens*`;
  }
}

export function exportMarkdown(snapshot: SessionSnapshot, opts: MarkdownExportOptions = {}): string {
  const { meta } = snapshot;
  const tree = new SessionTree(snapshot.entries);
  const ctx = buildSessionContext(tree, meta.leafId);
  const out: string[] = opts.frontMatter ? [frontMatter(snapshot), `# ${esc(meta.title)}`] : [`# ${esc(meta.title)}`];
  if (!opts.frontMatter) {
    const facts = meta.undated ? [`no date (imported ${formatDate(meta.createdAt)})`] : [`Created ${formatDate(meta.createdAt)}`, `updated ${formatDate(meta.updatedAt)}`];
    facts.push(`${snapshot.entries.length} entries`);
    if (meta.model) facts.push(`model ${esc(meta.model)}`);
    if (meta.source) facts.push(`imported from ${esc(meta.source.format)}${meta.source.fileName ? ` (${esc(meta.source.fileName)})` : ''}`);
    if (meta.continuedFrom) facts.push(`continues “${esc(meta.continuedFrom.title)}”`);
    out.push(`*${facts.join(' · ')}*`);
  }
  if (meta.systemPrompt) out.push(`## System prompt\n\n${fence(meta.systemPrompt)}`);
  out.push(`## Conversation${opts.allBranches ? ' (active path)' : ''}`);
  for (const e of ctx.path) out.push(entryMd(e, '###', ctx.summaries.get(e.id)));

  if (opts.allBranches) {
    out.push('## All branches');
    const onPath = new Set(ctx.path.map((e) => e.id));
    // Depth-first; a heading wherever a parent has several children (and for several roots).
    const stack: { entry: SessionEntry; label: string }[] = [];
    const pushKids = (kids: readonly SessionEntry[], label: string) => {
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ entry: kids[i]!, label: kids.length > 1 ? `${label}${label ? '.' : ''}${i + 1}` : label });
    };
    pushKids(tree.roots(), '');
    const headed = new Set<string>();
    while (stack.length) {
      const { entry, label } = stack.pop()!;
      const siblings = entry.parentId === null || !tree.has(entry.parentId) ? tree.roots() : tree.children(entry.parentId);
      if (siblings.length > 1 && !headed.has(entry.id)) {
        headed.add(entry.id);
        const n = siblings.indexOf(entry) + 1;
        const active = onPath.has(entry.id) ? ' (active)' : '';
        out.push(`### Branch ${label} (${n} of ${siblings.length})${active}`);
      }
      out.push(entryMd(entry, '####'));
      pushKids(tree.children(entry.id), label);
    }
  }
  return out.join('\n\n') + '\n';
}
