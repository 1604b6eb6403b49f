import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createServerLogger, readLogLevel, routeOf } from './requestLog';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const dest = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { dest, lines };
}

describe('LOG_LEVEL', () => {
  it('picks the level, and falls back to info with a warning for nonsense', () => {
    expect(readLogLevel({})).toEqual({ level: 'info' });
    expect(readLogLevel({ LOG_LEVEL: ' WARN ' })).toEqual({ level: 'warn' });
    expect(readLogLevel({ LOG_LEVEL: 'silent' })).toEqual({ level: 'silent' });
    expect(readLogLevel({ LOG_LEVEL: 'loud' }).level).toBe('info');
    expect(readLogLevel({ LOG_LEVEL: 'loud' }).warning).toContain('"loud"');
  });

  it('filters lines by level and names levels in words', () => {
    const warn = capture();
    const logger = createServerLogger({ LOG_LEVEL: 'warn' }, warn.dest);
    logger.info('hidden');
    logger.warn('shown');
    expect(warn.lines.map((l) => [l.level, l.msg])).toEqual([['warn', 'shown']]);
    expect(typeof warn.lines[0]!.time).toBe('string');

    const bad = capture();
    createServerLogger({ LOG_LEVEL: 'loud' }, bad.dest).info('still logged');
    expect(bad.lines.map((l) => l.msg)).toEqual(['LOG_LEVEL: "loud" is not one of trace, debug, info, warn, error, fatal, silent; logging at info.', 'still logged']);
  });
});

describe('the route of a request line', () => {
  it('is the path without query or fragment, cut to 200 characters', () => {
    expect(routeOf('/api/sync/pull?after=3&session=abc')).toBe('/api/sync/pull');
    expect(routeOf('/signin#x')).toBe('/signin');
    expect(routeOf(undefined)).toBe('/');
    expect(routeOf('?only=query')).toBe('/');
    expect(routeOf(`/${'x'.repeat(300)}`)).toHaveLength(201);
  });
});
