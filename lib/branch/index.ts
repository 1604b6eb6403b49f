export * from './collect';
export * from './prepare';
export * from './summarize';
