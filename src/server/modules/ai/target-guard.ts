import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Where the AI endpoint may not point. The base URL is an admin's text, and the server calls it: pointed at a cloud
// metadata service it would hand that service's answers (instance credentials) to whoever reads the error or the
// reply. Link-local ranges are where those services live. Loopback and private addresses stay allowed: a model served
// on the same host or network (Ollama, vLLM) is a real setup.

/** Resolves a host name to every address it has (the system resolver in production; a stub in tests). */
export type LookupHost = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: LookupHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

const refused = new BlockList();
refused.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local: AWS, GCP, Azure, OpenStack metadata at 169.254.169.254
refused.addSubnet('fe80::', 10, 'ipv6'); // link-local
refused.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
refused.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata

function isRefusedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return refused.check(mapped, 'ipv4');
  const family = isIP(address);
  return family === 4 ? refused.check(address, 'ipv4') : family === 6 && refused.check(address, 'ipv6');
}

export const REFUSED_TARGET = 'AI 接口地址指向链路本地或云服务器元数据地址，出于安全考虑不允许使用';

/** Thrown by the guarded lookup; the caller finds it in the connection error's causes. */
export class RefusedTarget extends Error {
  constructor() {
    super(REFUSED_TARGET);
  }
}

/** Whether the URL itself names a refused target (an address literal or a metadata host name): no lookup needed. */
export function refusedByName(baseUrl: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false; // not a URL: the call fails as unreachable
  }
  return METADATA_HOSTS.has(hostname.replace(/\.$/, '')) || (isIP(hostname) !== 0 && isRefusedAddress(hostname));
}

/**
 * The `lookup` of the connections to the AI endpoint: resolves with `lookupHost` and refuses a name with any refused
 * address. Checking the addresses the socket then connects to, rather than resolving once beforehand, means a name
 * whose answer changes between a check and the connection (DNS rebinding) cannot slip through.
 */
export function guardedLookup(lookupHost: LookupHost): LookupFunction {
  return (hostname, options, callback) => {
    lookupHost(hostname).then(
      (addresses) => {
        if (addresses.length === 0 || addresses.some((a) => isRefusedAddress(a.address))) {
          const error = addresses.length === 0 ? Object.assign(new Error('no address'), { code: 'ENOTFOUND' }) : null;
          callback(error ?? new RefusedTarget(), '', 0);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (options.all) (callback as unknown as (e: null, all: typeof usable) => void)(null, usable);
        else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 4);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/** Whether a failed call was refused by the guard (somewhere in its chain of causes). */
export function wasRefused(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (e instanceof RefusedTarget) return true;
  return false;
}
