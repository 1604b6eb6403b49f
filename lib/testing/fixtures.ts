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
