import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

// A passkey authenticator in software, for API tests that have no browser (the e2e tests use Chromium's virtual
// authenticator instead): it makes ES256 credentials, answers navigator.credentials.create/get's JSON as a browser
// would (attestation "none", user present and verified), and can be told to count signatures or not, to sign for
// another origin, or to set its counter back, as a cloned credential would.

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(
    private readonly origin: string,
    private readonly options: { counting?: boolean } = {},
  ) {}

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin = this.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** Answers passkeyRegistrationOptions as navigator.credentials.create would (RegistrationResponseJSON). */

  register(options: any, overrides: { origin?: string; again?: number } = {}) {
    // `again`: attest a credential this authenticator made before (the same key and id), as a second registration would.
    const earlier = overrides.again === undefined ? undefined : this.credentials[overrides.again];
    const { privateKey, publicKey } = earlier
      ? { privateKey: earlier.privateKey, publicKey: createPublicKey(earlier.privateKey) }
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const id = earlier?.id ?? randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, id, Buffer.from(isoCBOR.encode(coseKey))]);
    const authData = this.authData(options.rp.id, FLAG_UP | FLAG_UV | FLAG_AT, 0, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    if (!earlier) this.credentials.push({ id, privateKey, userHandle: options.user.id, counter: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, overrides.origin)),
        attestationObject: b64url(Buffer.from(attestationObject)),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** Answers userLoginPasskeyOptions as navigator.credentials.get would, with a credential of this authenticator. */

  authenticate(options: any, overrides: { credential?: number; origin?: string; counter?: number } = {}) {
    const credential = this.credentials[overrides.credential ?? this.credentials.length - 1];
    if (!credential) throw new Error('no credential registered');
    if (overrides.counter !== undefined) credential.counter = overrides.counter;
    else if (this.options.counting !== false) credential.counter += 1;
    const authData = this.authData(options.rpId, FLAG_UP | FLAG_UV, credential.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
