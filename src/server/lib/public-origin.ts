import { isIP } from 'node:net';
import { ConfigError } from './config-values.js';

// Where people open the site, as their browser sees it: passkeys (WebAuthn) are bound to it. The browser checks the
// relying party id (a domain, the origin's host or a parent of it) against the page, and the server checks the origin
// the browser signed; both come from PUBLIC_ORIGIN, so a wrong value fails at start-up with a message, not later at
// everyone's first passkey with an error no one can read.

export interface PublicOrigin {
  /** `https://mall.example.com` (scheme, host, port when not the default; no path). */
  origin: string;
  /** The relying party id: the origin's host, or PASSKEY_RP_ID (a parent domain of it). */
  rpId: string;
}

const isLocalhost = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** Whether the site is opened on this machine only (the README's quick start): http://localhost:<port>. */
export const isLocalOrigin = (origin: PublicOrigin): boolean => isLocalhost(new URL(origin.origin).hostname);

/**
 * PUBLIC_ORIGIN (default `http://localhost:<PORT>`, the README's quick start) and PASSKEY_RP_ID (default: its host).
 * Refused: anything but an origin; an IP address (WebAuthn has no relying party on one); http anywhere but localhost
 * (browsers offer passkeys only in secure contexts); COOKIE_SECURE with http (the cookie would never come back); an
 * rp id that is not the host or a parent domain of it.
 */
export function loadPublicOrigin(env: NodeJS.ProcessEnv, port: number, cookieSecure: boolean): PublicOrigin {
  const raw = env.PUBLIC_ORIGIN?.trim() || `http://localhost:${port || 8080}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_ORIGIN must be the address people open, like https://mall.example.com; got "${raw}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash)
    throw new ConfigError(`PUBLIC_ORIGIN must be an http(s) origin like https://mall.example.com; got "${raw}"`);
  if (url.pathname !== '/')
    throw new ConfigError(`PUBLIC_ORIGIN is an origin, without a path (the site is served at /); got "${raw}"`);
  const host = url.hostname;
  if (isIP(host.replace(/^\[|\]$/g, '')))
    throw new ConfigError(
      `PUBLIC_ORIGIN must name the site by a domain: passkeys cannot be bound to an IP address (use localhost for a ` +
        `local run); got "${raw}"`,
    );
  if (url.protocol === 'http:' && !isLocalhost(host))
    throw new ConfigError(
      `PUBLIC_ORIGIN must be https:// (browsers offer passkeys only on https, or on localhost); got "${raw}"`,
    );
  if (url.protocol === 'http:' && cookieSecure)
    throw new ConfigError(
      `COOKIE_SECURE=true but PUBLIC_ORIGIN is http:// ("${raw}"): browsers would never send the session cookie back`,
    );
  const rpId = (env.PASSKEY_RP_ID?.trim() || host).toLowerCase();
  if (rpId !== host && !host.endsWith(`.${rpId}`))
    throw new ConfigError(
      `PASSKEY_RP_ID "${rpId}" must be PUBLIC_ORIGIN's host "${host}" or a parent domain of it (e.g. example.com for ` +
        `mall.example.com)`,
    );
  return { origin: url.origin, rpId };
}
