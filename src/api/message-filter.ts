/**
 * Server messages that must never be shown as they are: the seed's offensive message, and anything that looks like
 * a raw internal error (exception names, SQL, stack lines) from a misbehaving proxy or server. One table, so adding
 * a case is one line. What is shown instead is the web app's word (`fallback`).
 */
const NEVER_SHOW: readonly RegExp[] = [
  /傻[逼比屄Bb]|操你妈/,
  /\b[A-Z][A-Za-z]+(Exception|Error)\b/,
  /\b(SQL|SQLITE|select\s.+\sfrom|insert\s+into|syntax error)\b/i,
  /^\s*at\s+\S+\s+\(.+:\d+:\d+\)/m,
  /^\s*$/,
];

export function displayMessage(serverMessage: unknown, fallback: string): string {
  const text = typeof serverMessage === 'string' ? serverMessage : '';
  return NEVER_SHOW.some((pattern) => pattern.test(text)) ? fallback : text;
}
