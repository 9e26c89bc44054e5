import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// The AI endpoint's API key at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the server's SESSION_SECRET,
// so a copy of the database alone does not reveal it. The derivation's info names this one use, so the same secret
// keyed elsewhere (session hashes) never yields this key. Changing SESSION_SECRET makes a stored key unreadable: the
// admin enters it again.

const VERSION = 'v1';
const AAD = Buffer.from('ai_config.api_key');

const keyFrom = (serverSecret: string) =>
  Buffer.from(hkdfSync('sha256', serverSecret, 'points-mall', 'ai-config api key v1', 32));

export function seal(serverSecret: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(serverSecret), iv);
  cipher.setAAD(AAD);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** The plain key, or null when it cannot be opened (another server secret, a damaged value). */
export function open(serverSecret: string, sealed: string): string | null {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== VERSION || !iv || body === undefined || !tag) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFrom(serverSecret), Buffer.from(iv, 'base64url'));
    decipher.setAAD(AAD);
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
