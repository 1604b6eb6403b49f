import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/**
 * The real transcripts (fixtures/real, copied unchanged from ../shared so a
 * clean clone can test them). Test-only: never imported by app code.
 */
export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/real/', import.meta.url));

export const FIXTURES = {
  piV1: 'badlogic_pi-mono_compact.jsonl',
  claudeViewer: 'd-kimuson_claude-code-viewer_fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl',
  claudeLog: 'daaain_claude-code-log_0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl',
  chatgptTree: 'danny-avila_LibreChat_chatgpt-tree.json',
  chatgptExport: 'danny-avila_LibreChat_chatgpt-export.json',
  librechatTree: 'danny-avila_LibreChat_librechat-tree.json',
  sweTraj: 'SWE-agent_SWE-agent_pydicom__pydicom-1458.traj',
  codexRollout: 'codemie-ai_codemie-code_rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl',
  geminiSession: 'Mai0313_VibeCodingTracker_test_conversation_gemini.json',
  claudeAiExport: 'yetanotherchris_openwebui-importer_claude_example.json',
  lobeChatExport: 'lobehub_lobe-chat_messages.json',
  openWebUiChat: 'yetanotherchris_openwebui-importer_webui-json.json',
  piBeforeCompaction: 'badlogic_pi-mono_before-compaction.jsonl',
  piSession: 'badlogic_pi-mono_session.jsonl',
  claudeCodemie: 'codemie-ai_codemie-code_session-624a4a58.jsonl',
  claudeSpotterManual: 'marot_spotter_ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl',
  claudeSpotter258: 'marot_spotter_258c7280-ae70-4798-800f-63464d01a85d.jsonl',
  claudeSpotter846: 'marot_spotter_8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl',
  claudeSpotterOrphan: 'marot_spotter_4d5611e5-241a-462a-8d15-5122611a9569.jsonl',
  /** Claude Code's compaction sub-agents: the summarisation request and the model's raw answer (<analysis>, <summary>). */
  claudeCompactAgent946: 'marot_spotter_agent-acompact-946d2b.jsonl',
  claudeCompactAgentE1f: 'marot_spotter_agent-acompact-e1f845.jsonl',
  claudeCompactAgentF46: 'marot_spotter_agent-acompact-f46190.jsonl',
  claudeCompactAgentFff: 'marot_spotter_agent-acompact-fffbd0.jsonl',
  /** Claude Code 1.0.x records saved by a Stop hook as one JSON array (chat.json), each with a boundary-less compaction. */
  claudeHookTemplar: 'conneroisu_templar_chat.json',
  claudeHookAttio: 'kesslerio_attio-mcp-server_chat.json',
} as const;

export type FixtureName = keyof typeof FIXTURES;

export function fixturePath(name: FixtureName): string {
  return join(FIXTURES_DIR, FIXTURES[name]);
}

export function readFixture(name: FixtureName): string {
  return readFileSync(fixturePath(name), 'utf8');
}

export function allFixtureFiles(): string[] {
  return readdirSync(FIXTURES_DIR).filter((f) => f !== 'SOURCES.md');
}
