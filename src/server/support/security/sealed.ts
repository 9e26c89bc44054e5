import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Secrets the server must read again (the AI endpoint's API key, each account's TOTP key) are kept at rest as
// AES-256-GCM under a key derived (HKDF-SHA256) from the server's SESSION_SECRET, so a copy of the database alone does
// not reveal them. Each use names its own derivation info and associated data, so the same secret keyed for one use
// never opens another's values. Changing SESSION_SECRET makes sealed values unreadable.

const VERSION = 'v1';

export interface Sealer {
  seal: (serverSecret: string, plain: string) => string;
  /** The plain value, or null when it cannot be opened (another server secret, a damaged value, another use). */
  open: (serverSecret: string, sealed: string) => string | null;
}

export function sealerFor(info: string, associatedData: string): Sealer {
  const aad = Buffer.from(associatedData);
  const keyFrom = (serverSecret: string) => Buffer.from(hkdfSync('sha256', serverSecret, 'points-mall', info, 32));
  return {
    seal(serverSecret, plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFrom(serverSecret), iv);
      cipher.setAAD(aad);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(serverSecret, sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFrom(serverSecret), Buffer.from(iv, 'base64url'));
        decipher.setAAD(aad);
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
