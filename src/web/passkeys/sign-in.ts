import type { Schemas } from '../../api/operations';
import { api } from '../api';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { signInOnDevice } from './device';

/**
 * 使用通行密钥登录: a challenge from the server, the device's signature (the phone asks for a fingerprint, face or PIN),
 * and the session. No account name is typed: the passkey says whose it is. Two factors on its own, so no code follows.
 * Loaded when the button is tapped, so /login carries none of it. Answers the signed-in user, or null when something
 * stopped it (already told in a toast).
 */
export async function signInWithPasskey(): Promise<Schemas['LoginUser'] | null> {
  const options = await api.call('userLoginPasskeyOptions').catch(() => null);
  if (!options) return null;
  // The contract's PasskeyRequestOptions is WebAuthn's PublicKeyCredentialRequestOptionsJSON, passed on as is.
  const signed = await signInOnDevice(options);
  if (!signed.ok) {
    toast(signed.refusal === 'cancelled' ? t.auth.passkeyCancelled : t.auth.passkeyFailed);
    return null;
  }
  // WebAuthn's AuthenticationResponseJSON is the contract's PasskeyAuthenticationResponse.
  const credential = signed.value as Schemas['PasskeyAuthenticationResponse'];
  return api.call('userLoginPasskey', { body: { credential } }).catch(() => null);
}
