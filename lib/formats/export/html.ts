import { formatCount } from '@/lib/format/numbers';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import type { ImagePart, SessionEntry, SessionSnapshot } from '@/lib/session/types';
import { renderMarkdownToHtml } from '@/lib/markdown/render';
import type { EffectiveSummary } from '@/lib/session/revisions';
import { firstLine } from '@/lib/tree/preview';
import { argsJson, entryLabel, entryPreview, formatDate, imageLabel, stopNote, summaryFacts } from './shared';

/**
 * One self-contained HTML file that opens offline: a tree of the whole session
 * on the left (nested only at branch points, active path marked), the active
 * path in the main column, summaries in <details>. No script at all; every
 * piece of content is escaped or goes through the sanitizing markdown renderer,
 * and a CSP meta tag forbids scripts, remote loads and non-data images in case
 * anything slipped through.
 */

export const EXPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

const CSS = `
:root{color-scheme:light dark;--fg:#1d1d1f;--bg:#fff;--muted:#6b6b70;--line:#e2e2e6;--user:#eef4ff;--tool:#f6f6f7;--sum:#fff8e6;--accent:#3b6ee8}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8ea;--bg:#151517;--muted:#9a9aa2;--line:#2d2d33;--user:#1c2536;--tool:#1e1e22;--sum:#2b2616;--accent:#7aa2ff}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;color:var(--fg);background:var(--bg)}
.layout{display:grid;grid-template-columns:minmax(220px,320px) 1fr;min-height:100vh}
nav.tree{border-right:1px solid var(--line);padding:12px;font-size:13px;position:sticky;top:0;max-height:100vh;overflow:auto}
nav.tree ul{list-style:none;margin:0;padding-left:0}nav.tree li.fork>ul{padding-left:12px;border-left:2px solid var(--line);margin:2px 0 2px 4px}
nav.tree li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;color:var(--muted)}
nav.tree li.active{color:var(--fg)}nav.tree li.active>a,nav.tree li.active>span{font-weight:600}nav.tree li.leaf{outline:1px solid var(--accent);border-radius:3px}
nav.tree a{color:inherit;text-decoration:none}nav.tree .kind{font-size:11px;text-transform:uppercase;letter-spacing:.03em;margin-right:4px;opacity:.7}
main{padding:16px 24px;max-width:960px}header h1{margin:0 0 4px;font-size:22px}.meta{color:var(--muted);font-size:13px;margin:0 0 16px}
section.entry{border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:10px 0}
section.entry>h3{margin:0 0 6px;font-size:13px;text-transform:uppercase;letter-spacing:.03em;color:var(--muted)}
section.user{background:var(--user)}section.tool{background:var(--tool)}section.note{border-style:dashed;font-size:13px;color:var(--muted)}
details.summary{background:var(--sum);border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:10px 0}
details.summary>summary{cursor:pointer;font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;background:var(--tool);border:1px solid var(--line);border-radius:6px;padding:8px;font-size:12.5px;max-height:40em;overflow:auto}
.md pre{white-space:pre}.md img,img.part{max-width:100%;height:auto}.md table{border-collapse:collapse}.md td,.md th{border:1px solid var(--line);padding:2px 6px}
.stop{color:#c0392b;font-size:13px}.tool-call>summary,.thinking>summary,.tool-output>summary{cursor:pointer;color:var(--muted);font-size:13px}
`;

const SAFE_MIME = /^image\/(png|jpeg|jpg|gif|webp|bmp|avif)$/i;
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}$/;

function imageHtml(p: ImagePart): string {
  // Only embedded images of a known raster type become <img>: the CSP allows data: images and nothing else.
  if (p.data && SAFE_MIME.test(p.mimeType) && BASE64.test(p.data)) {
    return `<img class="part" alt="${escapeHtml(imageLabel(p))}" src="data:${p.mimeType.toLowerCase()};base64,${p.data.replace(/[\r\n]/g, '')}">`;
  }
  return `<p class="note">[${escapeHtml(imageLabel(p))}${p.url ? ` · ${escapeHtml(p.url)}` : ''}]</p>`;
}

const REVISION_WORDS = { undo: 'Summary undone: the full history is back in the context', redo: 'Summary restored', regenerate: 'Summary regenerated', edit: 'Summary edited' } as const;

/**
 * What the tree on the left shows for an entry: readable text, never an id
 * (entry ids appear only as the anchors the links point to) and never raw
 * markdown (a summary shows its first line of prose, not "## Goal").
 */
function navText(e: SessionEntry): { kind: string; text: string } {
  switch (e.type) {
    case 'compaction':
      return { kind: 'Compaction', text: `${formatCount(e.tokensBefore)}${e.tokensAfter !== undefined ? ` → ${formatCount(e.tokensAfter)}` : ''} tokens` };
    case 'branch_summary':
      return { kind: 'Branch summary', text: summaryProse(e.summary) };
    case 'summary_revision':
      return { kind: 'Summary', text: REVISION_WORDS[e.action].replace(/^Summary /, '').replace(/:.*/, '') };
    default:
      return { kind: entryLabel(e).split(' · ')[0]!, text: entryPreview(e, 60) };
  }
}

/** The first line of a summary that is prose rather than a heading, without markdown marks. */
function summaryProse(summary: string): string {
  for (const line of summary.split('\n')) {
    if (/^\s*#{1,6}\s/.test(line) || !line.trim()) continue;
    const plain = firstLine(line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').replace(/[*_`]+/g, ''));
    if (plain) return plain.length > 60 ? `${plain.slice(0, 59)}…` : plain;
  }
  return firstLine(summary);
}

function md(text: string): string {
  return `<div class="md">${renderMarkdownToHtml(text)}</div>`;
}

function pre(text: string): string {
  return `<pre>${escapeHtml(text)}</pre>`;
}

function collapsible(cls: string, summary: string, body: string, open: boolean): string {
  return `<details class="${cls}"${open ? ' open' : ''}><summary>${escapeHtml(summary)}</summary>${body}</details>`;
}

function entryBody(e: SessionEntry, effective?: EffectiveSummary): { cls: string; title: string; body: string } | { raw: string } {
  switch (e.type) {
    case 'message': {
      const m = e.message;
      if (m.role === 'user') {
        const body = m.content
          .map((p) => (p.type === 'text' ? md(p.text) : p.type === 'image' ? imageHtml(p) : `<p class="note">[file: ${escapeHtml(p.name)}, ${escapeHtml(p.mimeType)}]</p>${p.text !== undefined ? pre(p.text) : ''}`))
          .join('');
        return { cls: 'user', title: 'User', body };
      }
      if (m.role === 'assistant') {
        const parts = m.content.map((p) => {
          if (p.type === 'text') return md(p.text);
          if (p.type === 'thinking') return collapsible('thinking', p.redacted ? 'Thinking (redacted)' : 'Thinking', md(p.thinking), false);
          return collapsible('tool-call', `Tool call: ${p.name}`, pre(argsJson(p.arguments)), true);
        });
        const note = stopNote(m.stopReason);
        if (note) parts.push(`<p class="stop">Reply ${escapeHtml(note)}${m.errorMessage ? `: ${escapeHtml(m.errorMessage)}` : ''}</p>`);
        return { cls: 'assistant', title: m.model ? `Assistant · ${m.model}` : 'Assistant', body: parts.join('') };
      }
      const text = m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
      const lines = text.split('\n').length;
      const body =
        collapsible('tool-output', `${lines} line${lines === 1 ? '' : 's'} of output`, pre(text), lines <= 20) +
        m.content
          .filter((p): p is ImagePart => p.type === 'image')
          .map(imageHtml)
          .join('');
      return { cls: 'tool', title: `Tool result · ${m.toolName}${m.isError ? ' (error)' : ''}`, body };
    }
    case 'compaction':
      return {
        raw: collapsible(
          'summary compaction',
          `Compaction summary (${formatCount(e.tokensBefore)} tokens before${e.tokensAfter !== undefined ? `, ${formatCount(e.tokensAfter)} after` : ''})${effective?.undone ? ' — undone' : ''}`,
          `<p class="meta">${escapeHtml(summaryFacts(e, effective).join(' · '))}</p>${md(effective?.summary ?? e.summary)}`,
          true,
        ),
      };
    case 'branch_summary':
      return {
        raw: collapsible(
          'summary branch',
          `Branch summary (of an abandoned branch)${effective?.undone ? ' — undone' : ''}`,
          `<p class="meta">${escapeHtml(summaryFacts(e, effective).join(' · '))}</p>${md(effective?.summary ?? e.summary)}`,
          true,
        ),
      };
    case 'summary_revision':
      return e.summary !== undefined
        ? { raw: collapsible('summary revision', REVISION_WORDS[e.action], md(e.summary), true) }
        : { cls: 'note', title: 'Summary', body: `<p>${escapeHtml(REVISION_WORDS[e.action])}</p>` };
    default:
      return { cls: 'note', title: entryLabel(e), body: `<p>${escapeHtml(entryPreview(e, 500))}</p>` };
  }
}

function treeHtml(tree: SessionTree, anchors: Map<string, string>, onPath: Set<string>, leafId: string | null): string {
  type Task = { html: string } | { chain: SessionEntry };
  const out: string[] = ['<ul>'];
  const stack: Task[] = [{ html: '</ul>' }];
  const pushFork = (kids: readonly SessionEntry[]) => {
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ html: '</ul></li>' }, { chain: kids[i]! }, { html: '<li class="fork"><ul>' });
  };
  const roots = tree.roots();
  if (roots.length === 1) stack.push({ chain: roots[0]! });
  else pushFork(roots);
  while (stack.length) {
    const task = stack.pop()!;
    if ('html' in task) {
      out.push(task.html);
      continue;
    }
    let e: SessionEntry | undefined = task.chain;
    while (e) {
      const cls = [onPath.has(e.id) ? 'active' : '', e.id === leafId ? 'leaf' : ''].filter(Boolean).join(' ');
      const nav = navText(e);
      const text = `<span class="kind">${escapeHtml(nav.kind)}</span>${escapeHtml(nav.text)}`;
      const anchor = anchors.get(e.id);
      const inner = anchor ? `<a href="#${anchor}">${text}</a>` : `<span title="${escapeHtml(e.type === 'message' ? entryPreview(e, 300) : nav.text)}">${text}</span>`;
      out.push(`<li${cls ? ` class="${cls}"` : ''}${e.id === leafId ? ' aria-current="true"' : ''}>${inner}</li>`);
      const kids = tree.children(e.id);
      if (kids.length === 1) e = kids[0];
      else {
        pushFork(kids);
        e = undefined;
      }
    }
  }
  return out.join('');
}

export function exportHtml(snapshot: SessionSnapshot): string {
  const { meta } = snapshot;
  const tree = new SessionTree(snapshot.entries);
  const ctx = buildSessionContext(tree, meta.leafId);
  const onPath = new Set(ctx.path.map((e) => e.id));
  // Anchors are positions, not entry ids: imported ids can hold any character.
  const anchors = new Map<string, string>();
  ctx.path.forEach((e, i) => anchors.set(e.id, `e${i + 1}`));

  const facts = [`Created ${formatDate(meta.createdAt)}`, `${snapshot.entries.length} entries, ${ctx.path.length} on the active path`];
  if (meta.model) facts.push(meta.model);
  if (meta.source) facts.push(`imported from ${meta.source.format}`);
  const main: string[] = [`<header><h1>${escapeHtml(meta.title)}</h1><p class="meta">${escapeHtml(facts.join(' · '))}</p></header>`];
  if (meta.systemPrompt) main.push(collapsible('summary system', 'System prompt', pre(meta.systemPrompt), false));
  ctx.path.forEach((e) => {
    const id = anchors.get(e.id)!;
    const b = entryBody(e, ctx.summaries.get(e.id));
    if ('raw' in b) main.push(`<div id="${id}">${b.raw}</div>`);
    else main.push(`<section class="entry ${b.cls}" id="${id}"><h3>${escapeHtml(b.title)}</h3>${b.body}</section>`);
  });

  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(meta.title)}</title>`,
    `<style>${CSS}</style></head>`,
    '<body><div class="layout">',
    `<nav class="tree" aria-label="Conversation tree">${treeHtml(tree, anchors, onPath, meta.leafId)}</nav>`,
    `<main>${main.join('\n')}</main>`,
    '</div></body></html>',
    '',
  ].join('\n');
}
